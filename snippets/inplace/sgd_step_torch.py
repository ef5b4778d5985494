import torch

weight = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
loss = (weight * weight).sum()
loss.backward()

# An SGD step by hand: update the leaf in place, outside the graph.
with torch.no_grad():
    weight.sub_(0.25 * weight.grad)
weight.grad.zero_()

print(f"weight after the step: {weight.tolist()}")
print(f"still a leaf that requires grad: {weight.is_leaf and weight.requires_grad}")
print(f"version: {weight._version}")

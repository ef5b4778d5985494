import torch

weight = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
parameter = weight  # the tensor an optimiser or a module would hold
loss = (weight * weight).sum()
loss.backward()

with torch.no_grad():
    weight -= 0.25 * weight.grad

print(f"weight is still the parameter: {weight is parameter}")
print(f"parameter after the step:      {parameter.tolist()}")
print(f"weight requires grad:          {weight.requires_grad}")

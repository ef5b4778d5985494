import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
hidden = x.exp()
loss = (hidden * hidden).sum()  # mul saves hidden
hidden.detach_()  # detaches hidden itself, in place, after mul saved it
print(f"hidden.requires_grad: {hidden.requires_grad}, hidden.grad_fn: {hidden.grad_fn}")
try:
    loss.backward()
    outcome = "no error"
except RuntimeError as error:
    outcome = f"RuntimeError at backward: {str(error).split(', i.e.')[0]}"
print(outcome)

# The same on a leaf: backward runs, and the leaf gets no gradient
leaf = torch.tensor([1.0, 2.0], requires_grad=True)
leaf_loss = (leaf * leaf).sum()  # mul saves the leaf
leaf.detach_()
leaf_loss.backward()
print(f"leaf detached in place, after backward: leaf.grad is {leaf.grad}")

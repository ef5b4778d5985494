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

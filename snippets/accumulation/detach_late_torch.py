import torch

weight = torch.tensor([1.0, 2.0], requires_grad=True)

# detach_() after the state was used: the graph already built still reaches weight
hidden = weight * 2  # state carried over from the previous iteration
output = hidden * 3  # this iteration has already used it
hidden.detach_()
output.sum().backward()
late = weight.grad.tolist()
print(f"detach_() after use:  weight.grad = {late}")

# detach_() before the state is used: nothing built from it reaches weight
weight.grad = None
hidden = weight * 2
hidden.detach_()
output = hidden * 3
early = output.requires_grad
print(f"detach_() before use: output.requires_grad = {early}")

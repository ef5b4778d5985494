import torch

weight = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
square = weight * weight  # saves weight for its backward pass

try:
    weight.mul_(2.0)  # a leaf that requires gradients: refused?
    raised = False
except RuntimeError as error:
    if "a leaf Variable that requires grad" not in str(error):
        raise
    raised = True
    print(f"RuntimeError: {error}")

print(f"weight after the error: {weight.tolist()}")
print(f"version:                {weight._version}")

square.sum().backward()
expected = [2.0, 4.0, 6.0]  # d/dw of sum(w * w) at the weight we created: 2 * w
print(f"gradient: {weight.grad.tolist()}, expected {expected}")

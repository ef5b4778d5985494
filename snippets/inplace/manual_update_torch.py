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

# The same statement on a layer's attribute:
layer = torch.nn.Linear(3, 1)
layer(torch.ones(2, 3)).sum().backward()
held = layer.weight
try:
    with torch.no_grad():
        layer.weight -= 0.25 * layer.weight.grad
    on_attribute = "in place" if layer.weight is held else "rebound"
except TypeError as error:
    on_attribute = f"TypeError: {error}"
print(f"layer.weight -= ...: {on_attribute}")

import paddle

weight = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
parameter = weight  # the tensor an optimiser or a layer would hold
loss = (weight * weight).sum()
loss.backward()

with paddle.no_grad():
    weight -= 0.25 * weight.grad

print(f"weight is still the parameter: {weight is parameter}")
print(f"parameter after the step:      {parameter.tolist()}")
print(f"weight requires grad:          {not weight.stop_gradient}")

# The same statement on a layer's attribute:
layer = paddle.nn.Linear(3, 1)
layer(paddle.ones([2, 3])).sum().backward()
held = layer.weight
try:
    with paddle.no_grad():
        layer.weight -= 0.25 * layer.weight.grad
    on_attribute = "in place" if layer.weight is held else "rebound"
except TypeError as error:
    on_attribute = f"TypeError: {error}"
print(f"layer.weight -= ...: {on_attribute}")

import paddle

weight = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
square = weight * weight  # saves weight for its backward pass

try:
    weight.scale_(2.0)  # a leaf that requires gradients: refused?
    raised = False
except ValueError as error:
    if "can't use inplace strategy" not in str(error):
        raise
    raised = True
    print(f"ValueError: {str(error).splitlines()[0]}")

print(f"weight after the error: {weight.tolist()}")
print(f"version:                {weight.inplace_version}")

square.sum().backward()
expected = [2.0, 4.0, 6.0]  # d/dw of sum(w * w) at the weight we created: 2 * w
print(f"gradient: {weight.grad.tolist()}, expected {expected}")

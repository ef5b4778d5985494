import paddle

x = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
leaf = x  # keep a handle on the tensor we created
y = x * x
try:
    x *= 2
    raised = False
except RuntimeError as error:
    raised = True
    message = str(error)  # keep hold of what was caught
    print(f"x *= 2 raised RuntimeError: {error}")
y.sum().backward()

print(f"x is still the leaf: {x is leaf}")
print(f"x.grad:    {x.grad}")
print(f"leaf.grad: {leaf.grad.tolist()}")

import paddle

x = paddle.ones([3])
x.stop_gradient = False
hidden = x * 2
hidden.retain_grads()
hidden.scale_(3.0)  # an in-place write after retain_grads()
(hidden * hidden).sum().backward()
# d(loss)/d(hidden) is 2 * hidden: 12 for the values after the write, 36 for those before it.
print(f"hidden.grad: {hidden.grad.tolist()}, x.grad: {x.grad.tolist()}")

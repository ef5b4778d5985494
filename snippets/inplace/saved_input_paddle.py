import paddle

weight = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
x = weight * 1  # an intermediate result, not a leaf
y = x * x  # backward of x * x needs x
x.scale_(2)  # the value backward needs is overwritten
y.sum().backward()

import paddle

weight = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
weight.add_(paddle.to_tensor(1.0))

import paddle

weight = paddle.to_tensor([0.5, 1.0, 2.0], stop_gradient=False)
hidden = weight * 1
hidden.exp_()  # saves its output, which is hidden itself
hidden.sin_()  # overwrites what exp_ saved
hidden.sum().backward()

import paddle

weight = paddle.ones([3])
weight.stop_gradient = False
scale = paddle.ones([3])
loss = (weight * scale).sum()  # multiply saves scale for weight's gradient
with paddle.no_grad():  # Paddle has no inference_mode
    scale.multiply_(paddle.to_tensor(2.0))  # the version counter still counts this write
print(f"version: {scale.inplace_version}")
loss.backward()

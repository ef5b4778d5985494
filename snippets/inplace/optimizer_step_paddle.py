import paddle

weight = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
optimizer = paddle.optimizer.SGD(learning_rate=0.25, parameters=[weight])
storage = weight.data_ptr()

(weight * weight).sum().backward()
optimizer.step()

print(f"weight after step(): {weight.tolist()}")
print(f"same storage:        {weight.data_ptr() == storage}")
print(f"version:             {weight.inplace_version}")

import paddle

model = paddle.nn.Linear(2, 1)
optimizer = paddle.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())


def grad_left_by(clear):
    model(paddle.ones([1, 2])).sum().backward()
    clear()
    grad = model.weight.grad
    return "None" if grad is None else f"zeros {list(grad.shape)}" if not grad.any() else "values"


left_behind = {
    "optimizer.clear_grad()": grad_left_by(optimizer.clear_grad),
    "optimizer.clear_grad(set_to_zero=False)": grad_left_by(
        lambda: optimizer.clear_grad(set_to_zero=False)
    ),
    "optimizer.zero_grad()": grad_left_by(optimizer.zero_grad),
    "model.clear_gradients()": grad_left_by(model.clear_gradients),
}
for call, grad in left_behind.items():
    print(f"{call:40} -> weight.grad is {grad}")

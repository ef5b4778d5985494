import paddle


def train(steps, clear_grads):
    model = paddle.nn.Linear(1, 1, bias_attr=False)
    with paddle.no_grad():
        model.weight.fill_(1.0)
    optimizer = paddle.optimizer.SGD(learning_rate=0.01, parameters=model.parameters())
    x = paddle.to_tensor([4.0])
    grads = []
    for _ in range(steps):
        if clear_grads:
            optimizer.clear_grad()
        loss = ((2 * x - model(x)) ** 2).mean()
        loss.backward()
        grads.append(round(model.weight.grad.item(), 4))
        optimizer.step()
    return grads, model.weight.item()


with_clear_grad, weight_with = train(3, clear_grads=True)
without_clear_grad, weight_without = train(3, clear_grads=False)
print("grad used by each step, with clear_grad():   ", with_clear_grad)
print("grad used by each step, without clear_grad():", without_clear_grad)
print(f"weight after 3 steps: {weight_with:.4f} with, {weight_without:.4f} without")

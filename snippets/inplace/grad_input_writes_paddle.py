import paddle


def write_from_weight(write, expected):
    """Write values computed from `weight` into a fresh buffer; is the write recorded?"""
    weight = paddle.to_tensor([0.5, 1.0, 2.0], stop_gradient=False)
    buffer = paddle.zeros([3])
    write(buffer, weight)
    if buffer.stop_gradient:
        return "not recorded: weight gets no gradient"
    (buffer * buffer).sum().backward()
    correct = paddle.allclose(weight.grad, expected(weight.detach())).item()
    return "recorded, correct gradient" if correct else "recorded, wrong gradient"


def assign_slice(buffer, weight):
    buffer[:] = weight


outcome = {
    "paddle.sin(weight, out=buffer)": write_from_weight(
        lambda buffer, weight: paddle.sin(weight, out=buffer),
        lambda w: 2 * paddle.sin(w) * paddle.cos(w),
    ),
    "buffer.copy_(weight, True)": write_from_weight(
        lambda buffer, weight: buffer.copy_(weight, True), lambda w: 2 * w
    ),
    "buffer[:] = weight": write_from_weight(assign_slice, lambda w: 2 * w),
    "paddle.assign(weight, output=buffer)": write_from_weight(
        lambda buffer, weight: paddle.assign(weight, output=buffer), lambda w: 2 * w
    ),
    "buffer.set_value(weight)": write_from_weight(
        lambda buffer, weight: buffer.set_value(weight), lambda w: 2 * w
    ),
}
for route, result in outcome.items():
    print(f"{route:38} {result}")

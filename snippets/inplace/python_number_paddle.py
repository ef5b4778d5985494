import paddle

N = 1 << 20  # 2**20 float32 values: 4 MiB per tensor
signal = paddle.rand([N])
two = paddle.to_tensor(2.0)  # the number 2 as a tensor, made before anything is measured


@paddle.no_grad()
def times_number(signal):
    return signal * 2


@paddle.no_grad()
def times_tensor(signal):
    return signal * two


print(f"same result: {paddle.equal_all(times_number(signal), times_tensor(signal)).item()}")

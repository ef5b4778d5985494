import paddle

N = 1 << 20  # 2**20 float32 values: 4 MiB per tensor
signal = paddle.rand([N])  # on the GPU in a GPU run


@paddle.no_grad()
def out_of_place(x):
    return paddle.sin(paddle.exp(x))  # two new results per call


@paddle.no_grad()
def in_place(x):
    return x.exp_().sin_()


out_of_place(signal)  # the first call: the allocator takes memory from the driver
paddle.device.synchronize()
reserved = paddle.device.cuda.memory_reserved()
for _ in range(100):
    out_of_place(signal)
paddle.device.synchronize()
reserved_growth = paddle.device.cuda.memory_reserved() - reserved
results_on_gpu = out_of_place(signal).place.is_gpu_place() and in_place(signal).place.is_gpu_place()

print(f"growth of reserved memory: {reserved_growth} bytes")
print(f"results stay on the GPU: {results_on_gpu}")

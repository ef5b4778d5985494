import paddle

signal = paddle.arange(6, dtype="float32")
storage = signal.data_ptr()

reshaped = signal.view([2, 3])  # view: new tensor object, same storage
doubled = signal * 2  # ordinary op: new storage
signal.scale_(2)  # in-place op: same storage, written over

print(f"view shares storage:        {reshaped.data_ptr() == storage}")
print(f"ordinary op shares storage: {doubled.data_ptr() == storage}")
print(f"in-place op kept storage:   {signal.data_ptr() == storage}")
print(f"version of signal:          {signal.inplace_version}")
print(f"version seen by the view:   {reshaped.inplace_version}")
print(f"view after scale_:          {reshaped.tolist()}")

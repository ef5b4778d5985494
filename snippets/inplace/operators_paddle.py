import paddle


def storage_kept(hidden):
    """Apply each operator statement; record whether the result stayed in the same storage."""
    kept = {}
    storage = hidden.data_ptr()
    hidden += 1
    kept["x += 1"] = hidden.data_ptr() == storage
    storage = hidden.data_ptr()
    hidden *= 2
    kept["x *= 2"] = hidden.data_ptr() == storage
    storage = hidden.data_ptr()
    hidden -= 1
    kept["x -= 1"] = hidden.data_ptr() == storage
    storage = hidden.data_ptr()
    hidden[0] = 5.0
    kept["x[0] = 5"] = hidden.data_ptr() == storage
    kept["version"] = hidden.inplace_version
    return kept


weight = paddle.ones([4])
weight.stop_gradient = False
grad_mode = storage_kept(weight * 1)  # an intermediate result, not a leaf
with paddle.no_grad():
    no_grad_mode = storage_kept(weight * 1)

print(f"grad mode: {grad_mode}")
print(f"no_grad:   {no_grad_mode}")

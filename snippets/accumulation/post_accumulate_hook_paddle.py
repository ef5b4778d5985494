import paddle

weight = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
has_post_accumulate_hook = hasattr(weight, "register_post_accumulate_grad_hook")
print(f"register_post_accumulate_grad_hook exists: {has_post_accumulate_hook}")
seen = []
# register_hook is called at each backward, with that backward's gradient for weight.
weight.register_hook(lambda grad: seen.append(grad.tolist()))
accumulation_steps = 4
for micro_batch in paddle.ones([accumulation_steps, 2]):  # four micro-batches of ones
    (weight * micro_batch).sum().backward()
print(f"hook calls: {len(seen)}, what each saw: {seen}, weight.grad: {weight.grad.tolist()}")

import paddle

weight = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
head = weight[:2]  # a view of the leaf
try:
    head.add_(paddle.ones([2]))
    raised = False
except ValueError as error:
    if "can't use inplace strategy" not in str(error):
        raise
    raised = True
    print(f"ValueError: {error}")

print(f"weight: {weight.tolist()}, version {weight.inplace_version}")

import re

import paddle

# The message that means "autograd refused this write"; `apply_` has a refusal of its own.
REFUSALS = (
    "that doesn't stop gradient can't use inplace strategy",
    "Cannot apply function on a tensor that required gradient",
)
FLOATS = [[1.5, -2.25, 0.75, 3.125]]
INTEGERS = [[2, 3, 4, 5]]  # for the methods that have integer kernels only
INTEGER_ONLY = {
    "bitwise_and_", "bitwise_invert_", "bitwise_left_shift_", "bitwise_not_",
    "bitwise_or_", "bitwise_right_shift_", "bitwise_xor_",
}  # fmt: skip

other = paddle.to_tensor([[0.5, 0.5, 0.5, 0.5]])
two = paddle.full([1, 4], 2.0)
mask = paddle.to_tensor([[True, False, True, False]])
index = paddle.to_tensor([0])
column = paddle.to_tensor([[1]])
# One call of each in-place method, on a tensor `t` of shape [1, 4].
CALLS = {
    "abs_": lambda t: t.abs_(),
    "acos_": lambda t: t.acos_(),
    "acosh_": lambda t: t.acosh_(),
    "add_": lambda t: t.add_(other),
    "addmm_": lambda t: t.addmm_(paddle.ones([1, 2]), paddle.ones([2, 4])),
    "apply_": lambda t: t.apply_(lambda x: x * 2),
    "asin_": lambda t: t.asin_(),
    "asinh_": lambda t: t.asinh_(),
    "atan_": lambda t: t.atan_(),
    "atanh_": lambda t: t.atanh_(),
    "baddbmm_": lambda t: t.baddbmm_(paddle.ones([1, 1, 2]), paddle.ones([1, 2, 4])),
    "bernoulli_": lambda t: t.bernoulli_(0.5),
    "bitwise_and_": lambda t: t.bitwise_and_(paddle.to_tensor([[1, 1, 1, 1]])),
    "bitwise_invert_": lambda t: t.bitwise_invert_(),
    "bitwise_left_shift_": lambda t: t.bitwise_left_shift_(paddle.to_tensor([[1, 1, 1, 1]])),
    "bitwise_not_": lambda t: t.bitwise_not_(),
    "bitwise_or_": lambda t: t.bitwise_or_(paddle.to_tensor([[1, 1, 1, 1]])),
    "bitwise_right_shift_": lambda t: t.bitwise_right_shift_(paddle.to_tensor([[1, 1, 1, 1]])),
    "bitwise_xor_": lambda t: t.bitwise_xor_(paddle.to_tensor([[1, 1, 1, 1]])),
    "cast_": lambda t: t.cast_("float64"),
    "cauchy_": lambda t: t.cauchy_(),
    "ceil_": lambda t: t.ceil_(),
    "clamp_": lambda t: t.clamp_(-0.1, 0.1),
    "clip_": lambda t: t.clip_(-0.1, 0.1),
    "copy_": lambda t: t.copy_(other, True),  # before 3.2 `blocking` has no default
    "copysign_": lambda t: t.copysign_(-other),
    "cos_": lambda t: t.cos_(),
    "cosh_": lambda t: t.cosh_(),
    "cumprod_": lambda t: t.cumprod_(1),
    "cumsum_": lambda t: t.cumsum_(1),
    "detach_": lambda t: t.detach_(),
    "digamma_": lambda t: t.digamma_(),
    "div_": lambda t: t.div_(two),
    "divide_": lambda t: t.divide_(two),
    "equal_": lambda t: t.equal_(other),
    "erfinv_": lambda t: t.erfinv_(),
    "exp_": lambda t: t.exp_(),
    "exponential_": lambda t: t.exponential_(),
    "fill_": lambda t: t.fill_(7.0),
    "fill_diagonal_": lambda t: t.fill_diagonal_(5.0),
    "fill_diagonal_tensor_": lambda t: t.fill_diagonal_tensor_(paddle.to_tensor([5.0])),
    "flatten_": lambda t: t.flatten_(),
    "floor_": lambda t: t.floor_(),
    "floor_divide_": lambda t: t.floor_divide_(other),
    "floor_mod_": lambda t: t.floor_mod_(other),
    "frac_": lambda t: t.frac_(),
    "gammainc_": lambda t: t.gammainc_(two),
    "gammaincc_": lambda t: t.gammaincc_(two),
    "gammaln_": lambda t: t.gammaln_(),
    "gcd_": lambda t: t.gcd_(two),
    "geometric_": lambda t: t.geometric_(0.5),
    "greater_equal_": lambda t: t.greater_equal_(other),
    "greater_than_": lambda t: t.greater_than_(other),
    "hypot_": lambda t: t.hypot_(other),
    "i0_": lambda t: t.i0_(),
    "index_add_": lambda t: t.index_add_(index, 0, other),
    "index_fill_": lambda t: t.index_fill_(index, 0, 9.0),
    "index_put_": lambda t: t.index_put_((index,), other),
    "lcm_": lambda t: t.lcm_(two),
    "ldexp_": lambda t: t.ldexp_(paddle.to_tensor([[1, 1, 1, 1]])),
    "lerp_": lambda t: t.lerp_(two, 0.5),
    "less_": lambda t: t.less_(other),
    "less_equal_": lambda t: t.less_equal_(other),
    "less_than_": lambda t: t.less_than_(other),
    "lgamma_": lambda t: t.lgamma_(),
    "log10_": lambda t: t.log10_(),
    "log1p_": lambda t: t.log1p_(),
    "log2_": lambda t: t.log2_(),
    "log_": lambda t: t.log_(),
    "log_normal_": lambda t: t.log_normal_(),
    "logical_and_": lambda t: t.logical_and_(other),
    "logical_not_": lambda t: t.logical_not_(),
    "logical_or_": lambda t: t.logical_or_(other),
    "logical_xor_": lambda t: t.logical_xor_(other),
    "logit_": lambda t: t.logit_(),
    "masked_fill_": lambda t: t.masked_fill_(mask, 0.0),
    "masked_scatter_": lambda t: t.masked_scatter_(mask, two),
    "mod_": lambda t: t.mod_(other),
    "mul_": lambda t: t.mul_(two),
    "multigammaln_": lambda t: t.multigammaln_(1),
    "multiply_": lambda t: t.multiply_(two),
    "nan_to_num_": lambda t: t.nan_to_num_(),
    "neg_": lambda t: t.neg_(),
    "normal_": lambda t: t.normal_(),
    "not_equal_": lambda t: t.not_equal_(other),
    "polygamma_": lambda t: t.polygamma_(1),
    "pow_": lambda t: t.pow_(2),
    "put_along_axis_": lambda t: t.put_along_axis_(column, 9.0, 1),
    "random_": lambda t: t.random_(0, 10),
    "reciprocal_": lambda t: t.reciprocal_(),
    "reconstruct_from_": lambda t: t.reconstruct_from_(other),
    "remainder_": lambda t: t.remainder_(other),
    "renorm_": lambda t: t.renorm_(2.0, 0, 0.1),
    "requires_grad_": lambda t: t.requires_grad_(False),
    "reshape_": lambda t: t.reshape_([2, 2]),
    "resize_": lambda t: t.resize_([2, 2]),
    "round_": lambda t: t.round_(),
    "rsqrt_": lambda t: t.rsqrt_(),
    "scale_": lambda t: t.scale_(2.0),
    "scatter_": lambda t: t.scatter_(index, other),
    "scatter_add_": lambda t: t.scatter_add_(1, column, paddle.to_tensor([[9.0]])),
    "set_": lambda t: t.set_(other),
    "sigmoid_": lambda t: t.sigmoid_(),
    "sin_": lambda t: t.sin_(),
    "sinc_": lambda t: t.sinc_(),
    "sinh_": lambda t: t.sinh_(),
    "sqrt_": lambda t: t.sqrt_(),
    "square_": lambda t: t.square_(),
    "squeeze_": lambda t: t.squeeze_(),
    "sub_": lambda t: t.sub_(other),
    "subtract_": lambda t: t.subtract_(other),
    "t_": lambda t: t.t_(),
    "tan_": lambda t: t.tan_(),
    "tanh_": lambda t: t.tanh_(),
    "transpose_": lambda t: t.transpose_([1, 0]),
    "tril_": lambda t: t.tril_(-1),
    "triu_": lambda t: t.triu_(1),
    "trunc_": lambda t: t.trunc_(),
    "uniform_": lambda t: t.uniform_(),
    "unsqueeze_": lambda t: t.unsqueeze_(0),
    "where_": lambda t: paddle.where_(mask, t, other),  # the method's self is the condition
    "zero_": lambda t: t.zero_(),
}


def fresh(name, stop_gradient):
    values = INTEGERS if name in INTEGER_ONLY else FLOATS
    if name == "baddbmm_":
        values = [values]  # a batch of one matrix
    return paddle.to_tensor(values, stop_gradient=stop_gradient)


def on_a_leaf(name):
    """Call the method on a fresh leaf that requires gradients; what it did to the leaf."""
    leaf = fresh(name, stop_gradient=False)
    before = leaf.numpy()
    try:
        CALLS[name](leaf)
        refused = False
    except Exception as error:  # another error is an outcome too, kept by its type
        if not any(text in str(error) for text in REFUSALS):
            return f"raised another error ({type(error).__name__})"
        refused = True
    after = leaf.numpy()
    written = after.shape != before.shape or after.dtype != before.dtype
    written = written or not paddle.equal_all(paddle.to_tensor(after), paddle.to_tensor(before))
    if refused:
        return "written, then refused" if written else "refused before writing"
    if not written:
        return "no values written"
    return "written, no error" if leaf.is_leaf else "written, no error, no longer a leaf"


def counter_step(name):
    """Call the method once on a fresh tensor that does not require gradients."""
    tensor = fresh(name, stop_gradient=True)
    try:
        CALLS[name](tensor)
    except Exception as error:
        return f"raised {type(error).__name__}"
    return tensor.inplace_version


GAP = re.compile(r"Its version is (\d+) but the expected version is (\d+)")


def message_gap(name):
    """sin saves a tensor, one call writes into it: how far apart backward's message puts the versions."""
    weight = paddle.to_tensor(FLOATS, stop_gradient=False)
    hidden = weight * 1
    result = paddle.sin(hidden)  # saves hidden
    try:
        CALLS[name](hidden)
        result.sum().backward()
    except Exception as error:
        versions = GAP.search(str(error))
        if versions is None:
            return f"raised another error ({type(error).__name__})"
        now, expected = versions.groups()
        return int(now) - int(expected)
    return "no error"


# Every public method of paddle.Tensor whose name ends in "_" (`grad_` is an attribute).
methods = [
    name
    for name in dir(paddle.Tensor)
    if name.endswith("_") and not name.startswith("_") and callable(getattr(paddle.Tensor, name))
]
untried = [name for name in methods if name not in CALLS]  # a method this list lacks
tried = [name for name in methods if name in CALLS]
leaf_outcome = {name: on_a_leaf(name) for name in tried}
# How far one call moves the counter, or the error the call raised.
steps = {name: counter_step(name) for name in tried}
counted = {name: step for name, step in steps.items() if isinstance(step, int)}
gaps = {name: message_gap(name) for name in ("add_", "index_fill_", "hypot_", "nan_to_num_")}
by_outcome = {}
for name, outcome in leaf_outcome.items():
    by_outcome.setdefault(outcome, []).append(name)

print(f"{len(methods)} in-place methods, not tried: {untried}")
for outcome, names in by_outcome.items():
    print(f"on a leaf, {outcome} ({len(names)}): {', '.join(names)}")
print("one call moves the counter by more than 1:", {n: s for n, s in counted.items() if s > 1})
print("one call leaves the counter as it was:", [n for n, s in counted.items() if s == 0])
print("one call raises:", {n: s for n, s in steps.items() if n not in counted})
print("versions apart in backward's message after one call:", gaps)

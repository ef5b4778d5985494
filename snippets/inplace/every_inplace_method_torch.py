import re

import torch

# The messages that mean "autograd refused this write"; any other error is kept by its type.
REFUSALS = (
    "a leaf Variable that requires grad is being used in an in-place operation",
    "a leaf Variable that requires grad has been used in an in-place operation",
)
FLOATS = [[1.5, -2.25, 0.75, 3.125]]
INTEGERS = [[2, 3, 4, 5]]  # gcd_, lcm_ and the bitwise methods have integer kernels only

other = torch.tensor([[0.5, 0.5, 0.5, 0.5]])
two = torch.full((1, 4), 2.0)
ones = torch.ones(1, 4, dtype=torch.int64)
index = torch.tensor([0])
# The PyTorch names of the Paddle methods that write into a leaf without an error, or that
# move Paddle's counter by more than one (gammainc_ is igamma_, multigammaln_ is mvlgamma_).
FLOAT_CALLS = {
    "add_": lambda t: t.add_(other),
    "baddbmm_": lambda t: t.baddbmm_(torch.ones(1, 1, 2), torch.ones(1, 2, 4)),
    "bernoulli_": lambda t: t.bernoulli_(0.5),
    "cauchy_": lambda t: t.cauchy_(),
    "copy_": lambda t: t.copy_(other),
    "eq_": lambda t: t.eq_(other),
    "exponential_": lambda t: t.exponential_(),
    "floor_divide_": lambda t: t.floor_divide_(other),
    "ge_": lambda t: t.ge_(other),
    "geometric_": lambda t: t.geometric_(0.5),
    "gt_": lambda t: t.gt_(other),
    "hypot_": lambda t: t.hypot_(other),
    "igamma_": lambda t: t.igamma_(two),
    "index_fill_": lambda t: t.index_fill_(0, index, 9.0),
    "ldexp_": lambda t: t.ldexp_(ones),
    "le_": lambda t: t.le_(other),
    "log_normal_": lambda t: t.log_normal_(),
    "logical_and_": lambda t: t.logical_and_(other),
    "logical_not_": lambda t: t.logical_not_(),
    "logical_or_": lambda t: t.logical_or_(other),
    "logical_xor_": lambda t: t.logical_xor_(other),
    "lt_": lambda t: t.lt_(other),
    "mvlgamma_": lambda t: t.mvlgamma_(1),
    "nan_to_num_": lambda t: t.nan_to_num_(),
    "ne_": lambda t: t.ne_(other),
    "sinc_": lambda t: t.sinc_(),
}
INTEGER_CALLS = {
    "bitwise_and_": lambda t: t.bitwise_and_(ones),
    "bitwise_left_shift_": lambda t: t.bitwise_left_shift_(ones),
    "bitwise_not_": lambda t: t.bitwise_not_(),
    "bitwise_or_": lambda t: t.bitwise_or_(ones),
    "bitwise_right_shift_": lambda t: t.bitwise_right_shift_(ones),
    "bitwise_xor_": lambda t: t.bitwise_xor_(ones),
    "gcd_": lambda t: t.gcd_(2 * ones),
    "lcm_": lambda t: t.lcm_(2 * ones),
}


def fresh(name, requires_grad):
    values = INTEGERS if name in INTEGER_CALLS else FLOATS
    if name == "baddbmm_":
        values = [values]  # a batch of one matrix
    return torch.tensor(values, requires_grad=requires_grad)


def on_a_leaf(name):
    """Call the method on a fresh leaf that requires gradients; what it did to the leaf."""
    leaf = fresh(name, requires_grad=True)
    before = leaf.detach().clone()
    try:
        FLOAT_CALLS[name](leaf)
        refused = False
    except Exception as error:  # another error is an outcome too, kept by its type
        if not any(text in str(error) for text in REFUSALS):
            return f"raised another error ({type(error).__name__})"
        refused = True
    written = leaf.shape != before.shape or not torch.equal(leaf.detach(), before)
    if refused:
        return "written, then refused" if written else "refused before writing"
    return "written, no error" if leaf.is_leaf else "written, no error, no longer a leaf"


def counter_step(name):
    """Call the method once on a fresh tensor that does not require gradients."""
    tensor = fresh(name, requires_grad=False)
    try:
        (FLOAT_CALLS | INTEGER_CALLS)[name](tensor)
    except Exception as error:
        return f"raised {type(error).__name__}"
    return tensor._version


GAP = re.compile(r"is at version (\d+); expected version (\d+)")


def message_gap(name):
    """sin saves a tensor, one call writes into it: how far apart backward's message puts the versions."""
    weight = torch.tensor(FLOATS, requires_grad=True)
    hidden = weight * 1
    result = torch.sin(hidden)  # saves hidden
    try:
        FLOAT_CALLS[name](hidden)
        result.sum().backward()
    except Exception as error:
        versions = GAP.search(str(error))
        if versions is None:
            return f"raised another error ({type(error).__name__})"
        now, expected = versions.groups()
        return int(now) - int(expected)
    return "no error"


leaf_outcome = {name: on_a_leaf(name) for name in FLOAT_CALLS}  # integers cannot require grad
# How far one call moves the counter, or the error the call raised.
steps = {name: counter_step(name) for name in FLOAT_CALLS | INTEGER_CALLS}
counted = {name: step for name, step in steps.items() if isinstance(step, int)}
gaps = {name: message_gap(name) for name in ("add_", "index_fill_", "hypot_", "nan_to_num_")}
by_outcome = {}
for name, outcome in leaf_outcome.items():
    by_outcome.setdefault(outcome, []).append(name)

for outcome, names in by_outcome.items():
    print(f"on a leaf, {outcome} ({len(names)}): {', '.join(names)}")
print("one call moves the counter by more than 1:", {n: s for n, s in counted.items() if s > 1})
print("one call leaves the counter as it was:", [n for n, s in counted.items() if s == 0])
print("one call raises:", {n: s for n, s in steps.items() if n not in counted})
print("versions apart in backward's message after one call:", gaps)

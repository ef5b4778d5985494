import warnings

import paddle
from paddle.jit.sot.utils import min_graph_size_guard


def features(w):
    hidden = w * 2
    hidden.sin_()  # in place on an intermediate result
    hidden.scale_(3.0)
    return hidden


def features_assigned(w):
    hidden = w * 2
    hidden = hidden.sin_()  # the same, with the result assigned
    hidden = hidden.scale_(3.0)
    return hidden


def shift(counts):
    counts.add_(paddle.ones_like(counts))  # in place on the caller's tensor
    return counts * 2


def shift_assigned(counts):
    counts = counts.add_(paddle.ones_like(counts))  # the same, with the result assigned
    return counts * 2


def scale_leaf(w):
    w.scale_(2.0)  # in place on a leaf that requires gradients
    return w * 1


def features_again(w):  # features again, as a function to_static has not converted yet
    hidden = w * 2
    hidden.sin_()
    hidden.scale_(3.0)
    return hidden


def features_long(w):  # the same writes in a function of more than 10 operations
    hidden = w * 2
    hidden.sin_()
    hidden.scale_(3.0)
    for _ in range(5):
        hidden = hidden * 1.0 + 0.0  # values unchanged
    return hidden


def run(wrap):
    """Run both functions, wrapped by `wrap`, and collect what the caller sees."""
    weight = paddle.to_tensor([0.5, 1.0, 2.0], stop_gradient=False)
    values = wrap(features)(weight)
    values.sum().backward()
    counts = paddle.to_tensor([1.0, 2.0, 3.0])
    doubled = wrap(shift)(counts)
    return {
        "values": values.tolist(),
        "gradient": weight.grad.tolist(),
        "returned": doubled.tolist(),
        "caller's counts": counts.tolist(),
    }


def run_and_warnings(wrap):
    """Also return the warnings about in-place operations that the run emitted."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = run(wrap)
    return result, sorted({str(w.message) for w in caught if "inplace" in str(w.message)})


def captured(function):
    """The default mode (SOT) with every graph captured. By default it runs a graph of fewer
    than 10 operations (MIN_GRAPH_SIZE) in dynamic mode, as it would these small functions."""
    static = paddle.jit.to_static(function)

    def call(*args):
        with min_graph_size_guard(0):
            return static(*args)

    return call


eager = run(lambda function: function)
# The default mode captures Python bytecode (SOT); full_graph=True converts the source (AST).
sot, sot_warnings = run_and_warnings(captured)
full_graph, full_graph_warnings = run_and_warnings(
    lambda function: paddle.jit.to_static(function, full_graph=True)
)

# Assigning the result of each in-place method:
eager_assigned = features_assigned(paddle.to_tensor([0.5, 1.0, 2.0])).tolist()
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # the same warnings as above
    static = paddle.jit.to_static(features_assigned, full_graph=True)
    assigned_full_graph = static(paddle.to_tensor([0.5, 1.0, 2.0])).tolist()
    counts = paddle.to_tensor([1.0, 2.0, 3.0])
    paddle.jit.to_static(shift_assigned, full_graph=True)(counts)
    assigned_caller_counts = counts.tolist()
    leaf = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    paddle.jit.to_static(scale_leaf, full_graph=True)(leaf)  # eager mode raises the leaf error

# The default mode as it comes: the short function runs eagerly, the long one is captured.
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # the same warnings as above
    short = paddle.jit.to_static(features_again)(paddle.to_tensor([0.5, 1.0, 2.0])).tolist()
    long = paddle.jit.to_static(features_long)(paddle.to_tensor([0.5, 1.0, 2.0])).tolist()

for key in eager:
    same = paddle.allclose(paddle.to_tensor(eager[key]), paddle.to_tensor(sot[key])).item()
    same_full = paddle.allclose(
        paddle.to_tensor(eager[key]), paddle.to_tensor(full_graph[key])
    ).item()
    print(f"{key:16} eager {[round(v, 4) for v in eager[key]]}")
    print(
        f"{'':16} to_static {[round(v, 4) for v in sot[key]]}, same {same}; "
        f"full_graph=True {[round(v, 4) for v in full_graph[key]]}, same {same_full}"
    )
for message in full_graph_warnings:
    print(f"full_graph=True, UserWarning: {message}")
print(f"to_static (default) warned about in-place operations: {len(sot_warnings)} times")
same = assigned_full_graph == eager_assigned
print(
    f"results assigned, full_graph=True: {[round(v, 4) for v in assigned_full_graph]}, same {same}"
)
print(f"results assigned, full_graph=True, caller's counts: {assigned_caller_counts}")
print(f"leaf written in place, full_graph=True: no error, leaf {leaf.tolist()}")
print(f"to_static as it comes, 3 operations: {[round(v, 4) for v in short]}")
print(f"to_static as it comes, 13 operations: {[round(v, 4) for v in long]}")

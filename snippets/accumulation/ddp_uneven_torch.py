from launch_torch import launch

reports = launch("ddp_uneven_worker_torch.py")
for rank, windows in enumerate(reports):
    print(f"rank {rank}: windows {[window['batches'] for window in windows]}")
# Each all-reduce pairs the n-th window of every process: equal gradients show which ones met.
paired = zip(*reports, strict=True)
equal_after_all_reduce = [
    len({str(window["grad"]) for window in windows}) == 1 for windows in paired
]
print("gradients equal on both processes after each all-reduce:", equal_after_all_reduce)

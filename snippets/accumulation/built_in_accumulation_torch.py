from launch_torch import launch

reports = launch("built_in_accumulation_worker_torch.py")
for rank, report in enumerate(reports):
    print(f"rank {rank}: {report}")

from launch_torch import launch

reports = launch("no_sync_scope_worker_torch.py")
for placement, result in reports[0].items():  # rank 0's report
    print(f"{placement:46} {result}")

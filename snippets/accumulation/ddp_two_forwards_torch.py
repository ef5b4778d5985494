from launch_torch import launch

reports = launch("ddp_two_forwards_worker_torch.py")
for setup, result in reports[0].items():  # rank 0's report
    print(f"{setup:44} {result}")

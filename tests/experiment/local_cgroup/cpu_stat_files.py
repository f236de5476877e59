"""cpu.stat contents as the kernel shows them, shared by the cgroup tests."""

V2_STAT = ("usage_usec 1500000\nuser_usec 1400000\nsystem_usec 100000\nnr_periods 30\nnr_throttled 27\n"
           "throttled_usec 2500000\nnr_bursts 0\nburst_usec 0\n")

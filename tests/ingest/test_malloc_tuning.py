"""reuse_freed_memory: nests, tolerates errors, and leaves results intact."""

from __future__ import annotations

import numpy as np
import pytest

from throttlelab.ingest import malloc_tuning


def test_nested_uses_and_errors_restore_the_count():
    with malloc_tuning.reuse_freed_memory():
        with malloc_tuning.reuse_freed_memory():
            a = np.arange(1 << 20) * 2
        assert malloc_tuning._users in (0, 1)  # 0 where the C library is not glibc
    assert malloc_tuning._users == 0
    with pytest.raises(ValueError), malloc_tuning.reuse_freed_memory():
        raise ValueError("boom")
    assert malloc_tuning._users == 0
    assert a[-1] == 2 * ((1 << 20) - 1)


def test_disabled_is_a_no_op():
    with malloc_tuning.reuse_freed_memory(False):
        assert malloc_tuning._users == 0

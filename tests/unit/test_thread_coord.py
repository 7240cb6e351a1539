"""`views.thread_coord` (the coordinate of a thread in a thread layout, for `distribute`)
inverts the layout: threads(thread_coord(t)) == t for every thread, also for a mode of
extent 1 of stride 0 as CuTe writes it (`(8,1):(1,0)`), which divided by zero before."""

import numpy as np
import pytest

from tilec.dialects import cute, views


@pytest.mark.parametrize("shape, stride", [
    ((8, 1), (1, 0)), ((1, 8), (0, 1)), ((8, 4), (4, 1)), ((8, 4), (1, 8)), (((2, 4), 1, 4), ((1, 2), 0, 8)),
])
def test_thread_coord_inverts_the_thread_layout(shape, stride):
    thr = cute.make_layout(shape, stride)
    tids = np.arange(thr.size())
    coords = views.thread_coord(thr, tids)
    offsets = sum(np.asarray(views.eval_mode(m, c)) for m, c in zip(views.modes(thr), coords))
    np.testing.assert_array_equal(offsets, tids)

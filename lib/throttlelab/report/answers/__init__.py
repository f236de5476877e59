"""Each report's answer in plain words: the lead (action, then how sure), what it rests on, the method.

One module per report (notebooks 01-07), each building an :class:`Answer` from the notebook's results;
:mod:`.answer_text` holds what they share (the word budget, :func:`how_sure`, names of groups, runs and thread
counts).  The right-sizing answer is :mod:`throttlelab.report.recommend`'s.
"""

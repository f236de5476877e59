"""``throttlelab recommend``'s outputs: the terminal table, strategic-merge patches, the HTML page and the answer.

The command is :mod:`throttlelab.report.recommend_cli`; the numbers are :mod:`throttlelab.analysis.rightsizing`'s.
"""

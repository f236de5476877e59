"""``throttlelab recommend``'s outputs: the terminal table, strategic-merge patches, the HTML page and the answer.

The command is :mod:`throttlelab.report.recommend_cli`; the numbers are :mod:`throttlelab.analysis.rightsizing`'s.
"""

from throttlelab.report.recommend.recommend_answer import recommend_answer
from throttlelab.report.recommend.recommend_html import recommend_html, table_html
from throttlelab.report.recommend.recommend_patch import patch_yaml
from throttlelab.report.recommend.recommend_table import print_table, table_text

__all__ = ['patch_yaml', 'print_table', 'recommend_answer', 'recommend_html', 'table_html', 'table_text']

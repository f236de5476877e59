"""Studies: which notebooks to run with which parameters, and running them with papermill.

A study file names the notebooks and their parameters; running it checks each run's requirements, executes the
notebook, records its provenance, publishes its HTML report and rebuilds the index.

The command is :mod:`throttlelab.report.study_cli`.
"""

from throttlelab.report.study.study_file import NotebookRun, Study, StudyFile, load_study, with_parameters
from throttlelab.report.study.study_runner import StudyOutcome, run_study

__all__ = ['NotebookRun', 'Study', 'StudyFile', 'StudyOutcome', 'load_study', 'run_study', 'with_parameters']

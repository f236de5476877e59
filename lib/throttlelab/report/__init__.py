"""Report layer: altair charts, the notebook helpers, studies (papermill), offline HTML, the index, recommend."""

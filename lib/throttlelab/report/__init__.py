"""Report layer: altair charts, offline HTML, studies (papermill), index."""

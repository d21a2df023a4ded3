"""Server-rendered pages and their presenters: the respondent form, the researcher
dashboard, builder and management pages, charts, protection words, forms."""

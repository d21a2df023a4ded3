"""XLSForm in and out (docs/xlsform.md): the reader of uploaded .xlsx files, the sheets →
survey body parser and the survey → .xlsx writer. The kinds own their rows
(``surveys.kinds._xlsform``).
"""

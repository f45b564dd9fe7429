"""Afrikaans date and number formats (Django ships none for ``af``, so it fell back to
the American "Des. 2, 2026, 7:58 vm."): day before month, the 24-hour clock, a
decimal comma, as South African usage has it."""

DATE_FORMAT = "j F Y"
TIME_FORMAT = "H:i"
DATETIME_FORMAT = "j F Y H:i"
YEAR_MONTH_FORMAT = "F Y"
MONTH_DAY_FORMAT = "j F"
SHORT_DATE_FORMAT = "Y-m-d"
SHORT_DATETIME_FORMAT = "Y-m-d H:i"
FIRST_DAY_OF_WEEK = 1  # Monday
DECIMAL_SEPARATOR = ","
THOUSAND_SEPARATOR = "\xa0"  # a non-breaking space
NUMBER_GROUPING = 3

"""Czech formats where Django's own differ from the language: the rest are Django's (``FORMAT_MODULE_PATH``)."""

# A day and its month, as the admin's date drill-down names a day: "6. prosince", the month in the genitive
# (Django's "j. F" said "6. prosinec", a tester).
MONTH_DAY_FORMAT = "j. E"

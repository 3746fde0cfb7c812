"""Verdicts: what each measure means, which test and null decide it, Holm's correction, power, the judge, the
controls and the plain-word sentences every screen and export shows. Above the measures, below runs and views."""

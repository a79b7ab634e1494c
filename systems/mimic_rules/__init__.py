"""The rule stages of :mod:`systems.mimic`, the re-implementation of the deid 1.1 program.

One module per rule family, in the order the program runs them on a paragraph
(Neamatullah et al. 2008; Tafvizi 2011, §2.5):

==================  =====================================================================
module              rule family
==================  =====================================================================
``candidates``      the candidate store, paragraphs, the final check, repeated names
``lexicon``         the word lists in the roles the program gives each file
``lists``           look-up of every word and multi-word entry in the lists
``dates``           Table 2.2 and the program's other date rules
``phones``          Table 2.3, pager numbers
``locations``       §2.5.3 locations, §2.5.4 hospitals, street addresses, zip codes
``numbers``         Table 2.4 (SSN), record/unit numbers, e-mail, URLs; Tables 2.5-2.6 (ages)
``names``           §2.5.1 names: titles, name indicators, credentials, name patterns
==================  =====================================================================
"""

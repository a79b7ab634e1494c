"""Corpus readers: one module per on-disk format, each registered with
``@reader(KIND, DESCRIPTION)`` in :data:`corpora.load.READERS`.

=============  =====================  ==========================================================
KIND           module                 input
=============  =====================  ==========================================================
physionet      :mod:`.physionet`      PhysioNet deid directory (``id.text`` + ``id-phi.phrase``)
i2b2-2006      :mod:`.i2b2_2006`      one i2b2 2006 XML file (inline ``<PHI TYPE=...>`` tags)
i2b2-2014      :mod:`.i2b2_2014`      a directory of i2b2 2014 XML files (stand-off ``<TAGS>``)
brat           :mod:`.brat`           brat stand-off: ``note.txt`` beside ``note.ann``
jsonl          :mod:`.jsonl`          the harness's native JSON lines (also :func:`write_jsonl`)
=============  =====================  ==========================================================

Every reader is ``read(path, *, lenient=False) -> ReadResult`` and raises only
:class:`corpora.model.CorpusError`, naming the file, the record and an offset (a byte offset
for undecodable bytes, otherwise a character offset).  With ``lenient=True`` the bad record
is skipped and its error appended to ``ReadResult.skipped``; a missing file always raises.

Category mapping onto the harness labels (Sibanda & Uzuner 2006, §3: the i2b2 2006 set plus
OTHER).  The reasons for each choice are in the reader modules and ``docs/formats.md``.

===========  ==============================================================  ============
source       source category                                                 label
===========  ==============================================================  ============
physionet    HCPName                                                         DOCTOR
physionet    PTName, PTNameInitial, RelativeProxyName (no relative class)    PATIENT
physionet    Location (hospitals included; never split off)                  LOCATION
physionet    Date, DateYear                                                  DATE
physionet    Phone / Age / Other                                             PHONE/AGE/OTHER
i2b2-2006    PATIENT DOCTOR LOCATION HOSPITAL DATE ID PHONE AGE              same (1:1)
i2b2-2014    NAME/PATIENT, NAME/DOCTOR                                       PATIENT, DOCTOR
i2b2-2014    NAME/USERNAME; ID/* (SSN, MEDICALRECORD, ... IDNUM)             ID
i2b2-2014    LOCATION/HOSPITAL, /DEPARTMENT, /ORGANIZATION                   HOSPITAL
i2b2-2014    LOCATION/ROOM, /STREET, /CITY, /STATE, /COUNTRY, /ZIP, /OTHER   LOCATION
i2b2-2014    AGE (all ages, not only > 89) / DATE                            AGE / DATE
i2b2-2014    CONTACT/PHONE, CONTACT/FAX                                      PHONE
i2b2-2014    CONTACT/EMAIL, /URL, /IPADDR; PROFESSION                        OTHER
brat         harness labels, i2b2 2014 types, PhysioNet types (any case)     as above
jsonl        harness labels                                                  same
===========  ==============================================================  ============

The reader modules are imported on the first lookup in :data:`corpora.load.READERS`, so
importing this package does not import them.  A new format is one more module here, found
without any other edit, or a function of an installed package named in the
``deid_bench.readers`` entry-point group; ``docs/extending.md`` has a complete example.
A helper module that registers no reader starts with ``_`` (like :mod:`._common`).
"""

"""Sentence templates of the embedded default corpus (written for deid-bench).

The templates imitate the *kind* of text Sibanda & Uzuner (2006, §3) describe and excerpt
-- discharge summaries full of fragments, shorthand (q.o.d., b.i.d., s/p, r/o), drug
lists and section headings -- and the ICU nursing notes of the PhysioNet deid corpus.  No
sentence is copied from either source.

Slots in braces are filled by :mod:`corpora.generator`.  PHI slots (:data:`PHI_SLOTS`)
become gold spans; the rest are non-PHI fillers, many of them *hard negatives*: eponyms
and devices (Swan-Ganz, Foley, Bell's palsy), drug names, numbers shaped like dates,
phones or IDs (BP 120/80, K 3.9, 2/6 murmur, 3V CABG, room and bed numbers, times).

Every template with at least one PHI slot is a *context pattern*; its id is
``"<pool>:<index>"`` (see :func:`pattern_ids`).  Many patterns deliberately give the PHI no
cue word at all ("{PAT} doing well today", "{HOSP} ED -> MICU"), as in real notes.
"""

from __future__ import annotations

import re

#: PHI slot -> gold category.
PHI_SLOTS: dict[str, str] = {
    "PAT": "PATIENT",  # a patient name in one of the paper's formats
    "PATN": "PATIENT",  # name after a title: Last / F. Last / F. M. Last / First Last
    "PATL": "PATIENT",  # patient surname
    "PATF": "PATIENT",  # patient first name
    "REL": "PATIENT",  # relative / proxy (labelled PATIENT, as in the i2b2 2006 guidelines)
    "DOC": "DOCTOR",
    "DOCL": "DOCTOR",
    "DOCN": "DOCTOR",  # doctor name after "Dr."
    "HOSP": "HOSPITAL",
    "HOSPA": "HOSPITAL",  # an abbreviation such as "BGH"
    "LOC": "LOCATION",
    "STATE": "LOCATION",
    "DATE": "DATE",
    "DATES": "DATE",  # short: 7/22, Jul 22
    "DATEL": "DATE",  # long: July 22, 2004 / 22nd of July, 2004
    "YEAR": "DATE",
    "ID": "ID",
    "PHONE": "PHONE",
    "PAGER": "PHONE",
    "AGE": "AGE",  # ages over 89 (HIPAA)
}

SLOT_RE = re.compile(r"\{([A-Z][A-Z0-9]*)\}")
#: ``<NAME>``: a cue macro from :data:`CUES`, expanded before slots are filled.
MACRO_RE = re.compile(r"<([A-Z][A-Z_]*)>")
#: ``[a|b|]``: pick one alternative (an empty one makes the group optional); may nest.
CHOICE_RE = re.compile(r"\[([^\[\]]*)\]")

#: Cue-word macros.  Real notes spell the same cue many ways -- abbreviated, possessive,
#: misspelled ("dtr", "daugher", "hsuband", "s/o") -- so a learner cannot key on one
#: literal word.  Each entry is one alternation group, so it may hold slots and nest.
CUES: dict[str, str] = {
    "WIFE": "[wife|wife|wife|wf|wfe|pt's wife|his wife|spouse|wief]",
    "HUSB": "[husband|husband|husb|hsuband|pt's husband|her husband|spouse|husbnd]",
    "DTR": "[daughter|daughter|dtr|dtr|daugher|dau|pt's daughter|daughter-in-law|duaghter]",
    "SON": "[son|son|s/o|pt's son|son-in-law|sonn]",
    "SIB": "[sister|brother|sis|bro|sistr|half-brother]",
    "KIN": "[<WIFE>|<HUSB>|<DTR>|<SON>|<SIB>|niece|nephew|grandson|granddaughter|HCP|"
    "friend|neighbor|proxy|cousin|mother|father|fiance|partner|grandaughter]",
    "SPOKE": "[spoke with|spoke w/|spoke to|talked w/|d/w|discussed with|called|updated|"
    "phoned|left message for|LM for|paged|met with|spoke at length w/|tel call from]",
    "DR": "[Dr.|Dr.|Dr.|Dr|dr.|DR]",
    "AWARE": "[aware|aware|made aware|notified|informed|updated|paged|called|in to see pt|"
    "at bedside|here]",
    "WHEN": "[this am|this pm|tonight|o/n|this evening|today|earlier|at {TIME}|x2|"
    "during shift|on rounds|]",
    "TOPIC": "[plan|POC|code status|transfer|goals of care|DNR|the meeting|d/c plan|"
    "trach/PEG|pt's condition|labs|CT results|the procedure]",
    "FROM": "[from|from|transferred from|tx from|sent from|came from|via|s/p transfer from|"
    "OSH:|trans fr]",
    "TO": "[to|to|d/c to|discharged to|transfer to|will go to|screened by|accepted at]",
    "DEV": "[{BRAND}|{BRAND}|{EPON}|{DRUG}]",
    "PH": "[cell|home|work|hm|c|cell #|ph|tel|phone|#|number|home #|h]",
    "PGR": "[pager|pgr|beeper|bpr|p|pager #|pg]",
    "STAFF": "[SW|the team|case mgmt|RN|HO|resident|attending|Nutrition|PT|Pharmacy|CM|"
    "Chaplain|Rehab screener|the fellow|covering MD|NF|night float|Renal|Cards|Neuro|Ortho|"
    "GI fellow|Hospice|Interpreter|Palliative care|Resp|RT|Anesthesia|IV team|Blood bank]",
    "IDCUE": "[MRN|MR#|Unit #|unit no|Med rec #|Med Rec No|Hosp #|Acct|Account No|ID|Pt ID]",
}

MAX_EXPANSIONS = 20


def expand(template: str, choice) -> str:
    """Resolve cue macros and ``[a|b]`` groups of ``template`` with ``choice`` (rng.choice).

    Why: a template is then a *pattern family* of many surface contexts (word order,
    optional words, abbreviations, typos), which is what keeps learners from memorising a
    handful of literal contexts (and scoring near-perfectly on text no clinician wrote).
    """
    for _ in range(MAX_EXPANSIONS):
        new = MACRO_RE.sub(lambda m: CUES[m.group(1)], template)
        if new == template:
            break
        template = new
    if "[" not in template:
        return template
    while True:
        new = CHOICE_RE.sub(lambda m: choice(m.group(1).split("|")), template)
        if new == template:
            break
        template = new
    # an empty alternative leaves a doubled or dangling space behind
    template = re.sub(r"(?<=\S) {2,}(?=\S)", " ", template.strip(" "))
    return re.sub(r" +(?=[.,;:])", "", template)


# ------------------------------------------------------------------------ discharge
DISCHARGE: dict[str, list[str]] = {
    "header": [
        "Admission Date: {DATE}     Discharge Date: {DATE}",
        "Date of Birth: {DATE}     Sex: {SEXL}",
        "Unit No: {ID}",
        "MRN: {ID}",
        "Medical Record Number: {ID}",
        "Account #: {ID}",
        "Service: {SVC}",
        "Attending: {DOC}, M.D.",
        "Attending physician: Dr. {DOCN}",
        "Admitting MD: {DOCL}",
        "Patient: {PAT}",
        "Name: {PATL}, {PATF}",
        "{HOSP} Discharge Summary",
        "DISCHARGE SUMMARY - {HOSP}",
        "ADMITTED: {DATES}   DISCHARGED: {DATES}",
        "[Admit|Adm|Admission] [Date|date|dt]: {DATES}[ | Discharge: {DATES}|]",
        "<IDCUE>[:|#|] {ID}[   {PATL}, {PATF}|]",
        "[PCP|Primary care|Referring MD|Ref]: [<DR> |]{DOC}[ ({HOSPA})|]",
        "{PATL}, {PATF} [{ID}|] [{DATES}|]",
    ],
    "CHIEF COMPLAINT": [
        "{CC}.",
        "{CC} x {NUM} days.",
        "Transfer from {HOSP} for {CC}.",
        "{CC}, sent in from {LOC}.",
    ],
    "HISTORY OF PRESENT ILLNESS": [
        "The patient is a {AGEY}-year-old {SEX} with {DX} who presented as a walk-in to "
        "the {HOSP} on {DATE}.",
        "Mr. {PATN} is a {AGEY} yo man with h/o {DX} and {DX} who was in his usual state of "
        "health until {DATES}.",
        "Ms. {PATN} is a {AGEY} y/o woman s/p {PROC} in {YEAR}, admitted with {CC}.",
        "{PAT} is a {AGE} year old {SEX} from {LOC} with {DX}.",
        "Pt is a {AGE} yo {SEX} nursing home resident transferred from {HOSP} with {CC}.",
        "She was seen by her PCP, Dr. {DOCN}, on {DATES} and started on {DRUG}.",
        "He was seen at {HOSP} on {DATE} where a {TEST} showed {FINDING}.",
        "Recently had been started q.o.d. on {DRUG} since {DATES} to taper off.",
        "Was told to start {MED} again by Dr. {DOCN}.",
        "Sent to the {HOSP} ED for direct admission, with the cardiologist, Dr. {DOCN}, to follow.",
        "The patient was transferred from {HOSP} in {LOC} on {DATE} for {PROC}.",
        "Of note, pt had a {PROC} at {HOSP} in {YEAR}.",
        "Per her daughter {REL}, she has been more confused since {DATES}.",
        "History obtained from the patient's son, {REL}, who lives in {LOC}.",
        "{PATF} reports {SYMPTOM} for {NUM} days prior to admission.",
        "Initially presented to {HOSPA} on {DATES} with {CC}.",
        "Last seen by Dr. {DOCL} in clinic {DATES}, at which time {FINDING}.",
        "Last admission {DATES}-{DATES} for {DX}.",
        "In {YEAR} she underwent {PROC} by Dr. {DOCN} at {HOSP}.",
        "{PATL} was found down at home in {LOC} by EMS on {DATES}.",
        "Per EMS, pt was found by neighbor {REL} on the morning of {DATEL}.",
        "He flew in from {LOC}, {STATE} on {DATES} and developed {SYMPTOM} on the plane.",
        "Patient was in {LOC} visiting family when symptoms began.",
        "Referred by {DOC} of {HOSP} for further w/u of {DX}.",
        "On {DATEL}, the patient noted {SYMPTOM}.",
        "{DATES} - {SYMPTOM}, r/o MI at {HOSPA}.",
        "{AGE} yo with {DX}, DNR/DNI per HCP {REL}.",
        "{PATF} {PATL} states that the pain started while shoveling snow.",
        "Mrs. {PATN} denies {SYMPTOM}.",
        "According to {PATF}, the {SYMPTOM} has been getting worse.",
        "{PATL} has had two prior admissions for {DX}.",
        "Mr. {PATN} and his wife {REL} report good compliance with {DRUG}.",
        "{PAT} was noted to be hypoxic to the 80s in triage.",
        "[Per|per|As per|Hx per] [<KIN>|the <KIN>] {REL}, [pt|she|he] [had been|was] [more "
        "confused|not eating|c/o {SYMPTOM}|weaker] [since|x] [{DATES}|{NUM} days|last week].",
        "[Pt|Patient|The patient] [was|had been] [seen|evaluated|followed] [at|by] "
        "[{HOSP}|{HOSPA}|<DR> {DOCL}] [on|in|] [{DATES}|{YEAR}|{DATEL}|] [for|w/|with] {CC}.",
        "{PATF} [reports|states|notes|c/o|complains of|denies] {SYMPTOM}[ x {NUM} days| since "
        "{DATES}|].",
        "[Brought in|BIBA|Brought to ED] by [<KIN>|EMS and <KIN>] [{REL}|] [from|at] "
        "[home|{LOC}|her home in {LOC}] [after|w/] {CC}.",
        "{DATES}[:| -|] [{SYMPTOM}|{CC}|seen by {DOCL}|cath at {HOSPA}][, {PLAN}|].",
        "[In|On|Since|Around|As of] {DATEL}[,|] [pt|she|he|{PATF}] [noted|developed|had] "
        "{SYMPTOM}.",
        "[OSH|Outside hospital|{HOSPA}] [course|records|labs][:|] {FINDING}[, {LAB}|].",
        "[Cards|Cardiology|PCP|Neuro] [<DR> |]{DOCL} [was|] [called|contacted|aware|recommended "
        "{PLAN}].",
        "[Pt|Patient|She|He] [was|had been] [admitted|hospitalized] [to|at] [{HOSP}|{HOSPA}] "
        "[in|on] [{YEAR}|{DATES}|{DATEL}] [for|with|w/] [{DX}|{CC}][, d/c'd home|].",
        "[Mr.|Ms.|Mrs.] {PATN} [reports|notes|describes|endorses] [{SYMPTOM}|{CC}] "
        "[starting|beginning|since] [{DATES}|{DATEL}|{NUM} days ago][, worse with exertion|].",
        "[{PATF}|{PATL}|{PAT}|Mr. {PATN}|Mrs. {PATN}] [presented|came in|was brought in|"
        "self-referred] [with|w/|c/o] [{CC}|{SYMPTOM}] [and|after|following] [{SYMPTOM}|a "
        "fall|{NUM} days of {SYMPTOM}].",
        "[{PATF}|{PATL}|Mr. {PATN}|Ms. {PATN}][,|] [a|the] [{AGEY}|{AGE}] [yo|y/o|year old] "
        "[{SEX}|{SEXS}][,|] [has a hx of|with|w/] {DX}[ and {DX}|].",
    ],
    "PAST MEDICAL HISTORY": [
        "{DX}",
        "{DX}, diagnosed {YEAR}",
        "s/p {PROC} ({YEAR})",
        "s/p {PROC} at {HOSP} {DATES}",
        "{DX} followed by Dr. {DOCL}",
        "{DX} - {DX}",
        "{EPON}",
        "h/o {DX} in {YEAR}, treated at {HOSPA}",
        "{PROC} {DATE}, Dr. {DOCN}",
        "{DX} [({YEAR})|{YEAR}|dx {YEAR}|since {YEAR}|]",
        "s/p {PROC} [{DATES}|{YEAR}|{DATEL}] [@|at|-|] [{HOSPA}|{HOSP}|<DR> {DOCL}|]",
        "{DX}, [followed by|f/b|sees|managed by] [<DR> |]{DOCL}[ at {HOSPA}|]",
        "[{DX}|{DX}, stable|{DX} (controlled)][ -|,] dx [{YEAR}|{DATES}] [at|@|by] "
        "[{HOSPA}|<DR> {DOCL}]",
        "[h/o|hx of|history of] {DX} [s/p|with] {PROC} [in|on] [{YEAR}|{DATEL}]",
        "[{PROC}|s/p {PROC}] [by|per|-] [<DR> {DOCL}|{DOC}][ {YEAR}| {DATES}|]",
        "[{DX}|{EPON}][,|;] [f/u|follows|seen] [at|in] [{HOSPA}|{HOSP}][ clinic|]",
        "[{DX}|{DX} on HD] [since|x] [{YEAR}|{NUM} yrs][, last admit {DATES}|]",
        "[Admission|Admit|Hospitalization] [for|w/] [{DX}|{CC}] [{DATES}|{YEAR}|{DATEL}][ at "
        "{HOSPA}|]",
        "[{DX}|mild {DX}|severe {DX}] [per|on] [echo|cath|CT|{TEST}] [{DATES}|{YEAR}][ ({HOSPA})|]",
    ],
    "MEDICATIONS": ["{MED}", "{MED}", "{MED}", "{MED}, recently increased by Dr. {DOCL}"],
    "ALLERGIES": ["NKDA.", "{DRUG} (rash).", "{DRUG} -> hives.", "Penicillins; {DRUG}."],
    "SOCIAL HISTORY": [
        "Lives alone, has one daughter living in {LOC}.",
        "Lives with her husband {REL} in {LOC}.",
        "Lives with wife in {LOC}, {STATE}; retired {JOB}.",
        "Married, lives in {LOC}; works as a {JOB}.",
        "Originally from {LOC}, moved to {STATE} in {YEAR}.",
        "Former {JOB} at {HOSP}.",
        "Son {REL} is her health care proxy, cell {PHONE}.",
        "HCP: {REL} (daughter) {PHONE}.",
        "Contact: wife {REL}, home phone {PHONE}.",
        "Quit smoking in {YEAR}; {NUM} pack-year history.",
        "No tobacco, occasional EtOH. Lives in {LOC}.",
        "Is a non-smoker and does not drink alcohol.",
        "Emigrated from {COUNTRYLOC} in {YEAR}.",
        "Lives [w/|with] [<KIN>|<WIFE>|<HUSB>] {REL} in {LOC}[, {STATE}|].",
        "[HCP|Proxy|Health care proxy|Contact] [is|:|-] [<KIN>|] {REL}[ ({KINWORD})|] [<PH>|] "
        "{PHONE}.",
        "[Lives|Resides] [in|at] [{LOC}|{HOSP} (NH)|a NH in {LOC}][; {JOB}|].",
        "[Family|Children|Kids] [in|:] {LOC}[ and {LOC}|].",
        "[{PATF}|{PATL}|Pt|Mr. {PATN}|Mrs. {PATN}] [lives|resides] [with|w/] "
        "[<KIN>|<WIFE>|<HUSB>] {REL}[ in {LOC}|][; {JOB}|].",
    ],
    "FAMILY HISTORY": [
        "Mother with {DX}; father died of MI at {AGEY}.",
        "Brother {REL} with {DX}.",
        "{EPON} in a maternal aunt.",
        "Noncontributory.",
    ],
    "PHYSICAL EXAMINATION": [
        "T {TEMP} HR {HR} BP {BP} RR {RR} O2 sat {SAT}% on {O2}.",
        "Gen: {EXAMGEN}.",
        "HEENT: PERRL, EOMI, MMM.",
        "Neck: JVP {NUM} cm, no LAD.",
        "CV: RRR, {MURMUR}.",
        "Lungs: {LUNGS}.",
        "Abd: soft, NT/ND, +BS.",
        "Ext: {EDEMA} LE edema, 2+ DP pulses.",
        "Neuro: A&Ox3, strength 5/5 throughout.",
    ],
    "LABORATORY DATA": [
        "{LAB}, {LAB}, {LAB}, {LAB}.",
        "{LAB} {LAB} {LAB}",
        "ABG {ABG}.",
        "EKG: {EKG}.",
        "CXR: {CXR}.",
        "Labs at {HOSPA} on {DATES}: {LAB}, {LAB}.",
        "Echo {DATES}: EF {EF}%, {FINDING}.",
        "Cath {DATE}: {FINDING}, {CATH}.",
    ],
    "HOSPITAL COURSE": [
        "During admission, the patient was seen by {SVC}, Dr. {DOCN}, and was started on {MED}.",
        "The patient was seen by Cardiology, Dr. {DOCN}, was started on IV heparin.",
        "By {DATES} the patient had better rate control but remained in {RHYTHM}.",
        "On {DATE}, the patient was felt to be medically stable.",
        "{PROC} was performed on {DATE} by Dr. {DOCN} without complication.",
        "{SVC} was consulted ({DOCL}) and recommended {PLAN}.",
        "Dr. {DOCN} of {SVC} saw the patient on {DATES}.",
        "{DOC} from {SVC} followed along.",
        "Pt was transferred to the MICU on {DATES} for {CC}.",
        "Family meeting held {DATES} with son {REL} and Dr. {DOCL}.",
        "{PATF} was extubated on {DATES} and transferred to the floor.",
        "Mrs. {PATN} tolerated the procedure well.",
        "Mr. {PATN} was ambulating independently by discharge.",
        "{PATF} remained afebrile for the rest of the stay.",
        "{PATL} was diuresed with {MED} with good effect.",
        "The plan was discussed at length with {PATF} and her husband {REL}.",
        "Ms. {PATN} was seen by PT and cleared for home.",
        "{PAT}'s {DRUG} was restarted at a lower dose.",
        "Discussed with Dr. {DOCN} (pager {PAGER}).",
        "Case discussed with the patient's PCP, {DOC}, at {PHONE}.",
        "Outside records from {HOSP} were reviewed and showed {FINDING}.",
        "{CC} resolved by {DATES}.",
        "1. {DX}: {PLAN}.",
        "2. {DX}: {MED}, {PLAN}.",
        "{DX}: pt was started on {MED} and {MED}.",
        "{EPON} noted; {PLAN}.",
        "Her {DRUG} was held on {DATES} for {LAB}.",
        "{PAT} was discharged in stable condition.",
        "Blood cultures from {DATES} grew {BUG}.",
        "PT/OT evaluated and recommended rehab at {HOSP}.",
        "Lasix was increased to {MED}.",
        "May need repeat {PROC} if {CC} recurs.",
        "Will continue {DRUG} and monitor.",
        "Still requiring {O2}; {PLAN}.",
        "Marked improvement after {MED}.",
        "Small R effusion, no further tap needed.",
        "Temperature rose to {TEMP} on HD #{NUM}.",
        "Long discussion held regarding goals of care.",
        "Reading of BP {BP} on repeat.",
        "Normal sinus rhythm restored after cardioversion.",
        "{DOCL} aware and agrees with plan.",
        "Pt was seen in consultation by {DOC} on {DATES}.",
        "Records requested from {HOSP} (MR# {ID}).",
        "The patient was admitted to the {SVC} service under Dr. {DOCN}.",
        "ID# {ID} confirmed with the blood bank.",
        "On the {ORD} hospital day the patient was transferred back to {HOSPA}.",
        "[Pt|Patient|She|He|{PATF}|{PATL}] [was|] [seen|evaluated|followed] by [{SVC}|{SVC} "
        "({DOCL})|<DR> {DOCL}] [on|] [{DATES}|HD#{NUM}|].",
        "[<SPOKE>] [<KIN> {REL}|the <KIN>|{REL}|<STAFF>|{DOCL}] [re:|regarding|about] <TOPIC>[ "
        "<WHEN>|].",
        "{EPON} [placed|removed|d/c'd|changed] [on|] {DATES}[ by {DOCL}|].",
        "{DRUG} [was|] [started|held|restarted|increased|d/c'd] [per|by|w/] [{SVC}|<DR> "
        "{DOCL}|{DOCL}|{DOCL}|<STAFF>] [on {DATES}|{DATES}|].",
        "[{DOCL}|{DOC}] [and|/|,] [{DOCL}|{DOC}] [agree|felt|discussed] [with plan|{PLAN}|].",
        "[Transferred|Tx'd|Sent] <TO> [{HOSP}|{HOSPA}|the {HOSPA} {UNIT}] [on|] "
        "[{DATES}|{DATEL}|HD#{NUM}].",
        "[{NUM}/10 pain|BP {BP}|PS {NUM}/5|I/O {NUM}/{NUM}|{HARDNUM}][,|;|.] [{DRUG}|{BRAND}] "
        "[given|changed|continued]; [f/u|follow up] [w/|with] [{DOCL}|<DR> {DOCL}|{SVC}][ "
        "{DATES}|].",
        "[On|By|As of] [HD #{NUM}|{DATES}|{DATEL}][,|] [{PATF}|{PATL}|pt|the patient] [was|had "
        "been] [transferred|moved|stepped down] to [the floor|{UNIT}|the {HOSPA} {UNIT}].",
        "[<DR> {DOCL}|{DOC}|{SVC} ({DOCL})] [was consulted|saw the patient|followed] "
        "[for|re:|regarding] [{DX}|{CC}|the {PROC}][ on {DATES}|].",
        "[Pt's|The patient's|{PATF}'s] [<KIN>|<WIFE>|<DTR>|<SON>] {REL} [was updated|was "
        "present|agreed with the plan|was at the bedside][ on {DATES}| daily| throughout|].",
        "[{PATF}|{PATL}|{PAT}|Mr. {PATN}|Ms. {PATN}] [tolerated|did well with|had no "
        "complications from] [the procedure|the {PROC}|diuresis|the transfusion][ and was "
        "advanced to a regular diet|].",
        "[{PATF}|{PATL}|Mrs. {PATN}|Mr. {PATN}] [remained|was|continued to be] "
        "[afebrile|hemodynamically stable|in {RHYTHM}|on {O2}] [throughout|overnight|for the "
        "rest of the stay|after the {PROC}].",
    ],
    "DISCHARGE MEDICATIONS": ["{MED}", "{MED}", "{MED}", "{MED}"],
    "DISCHARGE DISPOSITION": [
        "Home with services.",
        "Extended care facility: {HOSP}.",
        "Rehab - {HOSP}, {LOC}.",
        "Home with VNA of {LOC}.",
        "Home.",
    ],
    "FOLLOW UP": [
        "Follow up with Dr. {DOCN} in {NUM} weeks, call {PHONE} for an appointment.",
        "Follow-up appointment with {DOC} on {DATE} at {TIMEAMPM}.",
        "Please see your PCP, Dr. {DOCL}, within 1-2 weeks.",
        "Appointment at {HOSP} {SVC} clinic {DATES}; phone {PHONE}.",
        "F/u {SVC} clinic, {HOSPA}, on {DATEL}.",
        "Repeat {LAB} on {DATES} with results to Dr. {DOCL} (fax {PHONE}).",
        "[F/u|Follow up|Follow-up|FU|Appt] [w/|with] [<DR> |]{DOCL} [on|] [{DATES}|{DATEL}|in "
        "{NUM} wks][ @ {TIMEAMPM}|][ ({PHONE})|][, {HOSPA}|].",
        "[Call|Contact|Ph] [{HOSPA}|{SVC} clinic|<DR> {DOCL}] [at|@|-|:] {PHONE}[ w/ questions|].",
    ],
    "footer": [
        "Dictated By: {DOC}, M.D.",
        "{DOC}, MD {ID}",
        "D: {DATES}  T: {DATES}  JOB#: {ID}",
        "Signed electronically by {DOCN} on {DATEL}",
        "cc: {DOC}; {DOC}",
        "Completed by: {DOC} {DATE} {TIME}",
        "Dr. {DOCN} (pager {PAGER})",
        "[{DOCL}|{DOC}][,|] [MD|M.D.|NP|PA-C|RN][ {ID}|][ {DATES}|]",
        "[D|Dict|Dictated]: {DATES}[ {TIME}|] [T|Trans]: {DATES} [JOB#|Job #|Doc #] {ID}",
        "[cc|CC|Copies to][:|] {DOC}[, {HOSPA}|][; {DOCL}|]",
    ],
}

# ------------------------------------------------------------------------ nursing
NURSING: dict[str, list[str]] = {
    "header": [
        "Nursing Progress Note {SHIFT}",
        "NPN {SHIFT}",
        "CCU Nursing Admission Note",
        "MICU NSG Progress Note",
        "Nursing note {DATES} {SHIFT}",
        "{PATF} {PATL}, {DATES} nursing",
        "Resp Care note",
        "[NPN|Nsg note|Nursing|RN note|NURSING PROGRESS NOTE|Nsg] [{SHIFT}|{DATES}|{DATES} "
        "{SHIFT}|] [{UNIT}|]",
    ],
    "intro": [
        "{AGEY} yo {SEXS} admitted from {HOSPA} with {DX}.",
        "{AGE} yo {SEXS} from {HOSP} w/ {CC}.",
        "Pt transferred from {HOSP} on {DATES} for {PROC}.",
        "{PAT} is a {AGEY} yo {SEXS} s/p {PROC} {DATES}.",
        "pt arrived from {HOSPA} ED at {TIME}.",
        "Transferred from cath lab to CCU; {PROC} done by Dr. {DOCN}.",
        "Pt {PATL} received from OR at {TIME}.",
        "Mr. {PATN} had a quiet night.",
        "{PATL} remains intubated and sedated.",
        "Pt admitted to {UNIT} from {LOC} via med flight.",
        "{DX}, {DX}. Full code.",
        "See FHP for details.",
        "Moved to bed {NUM} this am; {DX}.",
        "Admitted {DATES} from {LOC} ED after a fall at home.",
        "Pt is well known to this unit, last here {DATES}.",
        "Pt of Dr. {DOCL}, admitted overnight from {HOSPA}.",
        "{AGE} y/o, DNR, comfort measures discussed w/ family.",
        "Hx obtained from {PATF}'s wife.",
        "{HOSPA} -> {UNIT} {DATES}.",
        "{PATL}, {PATF}: {DX}, s/p {PROC}.",
        "{PATL} [{AGEY}|{AGE}] [yo|y/o|year old] [{SEXS}|] [w/|with|hx] {DX}[, {DX}|].",
        "[{PATF}|{PATL}|{PAT}|{PATL}|{BRAND}|Pt|{REL}] [resting comfortably|slept most of "
        "night|restless at times|OOB to chair|agitated o/n|quiet night|very sleepy|pulled at "
        "lines] [<WHEN>|].",
        "[Pt|pt] <FROM> [{HOSPA}|{HOSP}|{LOC}|OSH ({HOSPA})] [ED|EW|ER|cath lab|] "
        "[<WHEN>|{DATES}|].",
        "[Seen|Examined|Reviewed|Rounded] [w/|with|by] [{DOCL}|<DR> {DOCL}|{DOCL} and "
        "{DOCL}|<STAFF>|{DOCL}] <WHEN>.",
        "{PATL}, {PATF} [- |: ] [{DX}|{CC}|s/p {PROC}|{AGE} yo]",
    ],
    "Neuro": [
        "A&Ox3, MAE, follows commands.",
        "Sedated on propofol {NUM} mcg/kg/min, arousable to voice.",
        "Lethargic but arousable, oriented x1.",
        "PERRL, no seizure activity. {EPON} noted on admit.",
        "Restless o/n, given haldol {NUM} mg IV with good effect.",
        "{PATF} more alert this am, recognizing family.",
        "{PATF} oriented to self only, calling out for {REL}.",
        "[{PATF}|{PATL}|pt] [alert|lethargic|confused|oriented x{NUM}|sleeping] [<WHEN>|], "
        "[MAE|follows cmds|{DRUG} prn|{NUM}/10 pain].",
        "[Asking for|Calling out for|Asking about|Recognizes] [<KIN>|] {REL}[ <WHEN>|].",
    ],
    "CV": [
        "HR {HR} {RHYTHM}, BP {BP}, {EKGSHORT}.",
        "SBP 90-{NUM}, on levophed {NUM} mcg/min.",
        "{EPON} in place, CVP {NUM}.",
        "Pulses palpable, K {NUM}.{NUM}, repleted with {MED}.",
        "Hct {NUM}.{NUM}, transfused 1u PRBC.",
        "Afebrile, Tmax {TEMP}.",
        "Dr. {DOCN} aware of BP {BP}.",
        "{DOCL} paged re: HR {HR}; no new orders.",
        "[{DOCL}|<DR> {DOCL}|HO {DOCL}|Fellow {DOCL}|{DOCL}|<STAFF>] <AWARE> [of|re:|re|about] "
        "[BP {BP}|HR {HR}|{HARDNUM}|K {NUM}.{NUM}|SBP 80s][; {PLAN}|].",
        "[{BRAND}|{DRUG}] [at|@|on] {NUM} [mcg|mcg/kg/min|units/hr|mg/hr][,|] [BP|MAP|SBP] {BP}[ "
        "<WHEN>|].",
    ],
    "Resp": [
        "LS coarse bilat, {LUNGS}.",
        "Vent settings AC {NUM}x{NUM}, FiO2 {SAT}%, PEEP 5.",
        "Suctioned for thick tan sputum, RR {RR}.",
        "O2 sat {SAT}% on {O2}.",
        "ABG {ABG}, no changes made.",
        "Weaning per RT; {PLAN}.",
        "Green sputum, cx sent.",
        "Short of breath with turning, may need BiPAP.",
        "Chest x-ray done, will f/u read.",
        "[Vent|AC|CPAP|PS] [{NUM}/5|5/5|{NUM}x{NUM}|{NUM}/{NUM}/{SAT}%][,|] [RR|rr] {RR}[, sats "
        "{SAT}|][; per {DOCL}|].",
    ],
    "GI": [
        "Abd soft, +BS, tolerating tube feeds at {NUM} cc/hr.",
        "NPO, NGT to LIS draining bilious fluid.",
        "{EPON}; no BM this shift.",
        "Protonix IV, guaiac neg stool.",
        "Brown stool, guaiac negative.",
        "Frank blood from NGT x1, team aware.",
        "Black tarry stool, Hct sent.",
    ],
    "GU": [
        "Foley draining clear yellow urine {NUM}-{NUM} cc/hr.",
        "Lasix {NUM} mg IV given at {TIME} with good response.",
        "I&O +{NUM} cc for shift.",
        "Cr {NUM}.{NUM}, renal following.",
    ],
    "ID": [
        "Afebrile, WBC {NUM}.{NUM}.",
        "Tmax {TEMP}, cultures sent x2.",
        "On {DRUG} and {DRUG}, f/u cultures from {DATES}.",
        "Vanco level pending.",
        "[{DRUG}|{BRAND}] [started|d/c'd|cont|dosed] [{DATES}|<WHEN>|per {DOCL}|per ID]; "
        "[cx|cultures] [from|of|] {DATES} [pending|neg|{BUG}].",
    ],
    "Skin": ["Intact.", "Stage II decub on coccyx, duoderm applied.", "IV sites c/d/i."],
    "Social": [
        "Wife {REL} in to visit this evening, updated by RN.",
        "Daughter {REL} called x2, given update.",
        "Pt's husband {REL} called, will be in tomorrow.",
        "Son {REL} ({PHONE}) is HCP.",
        "Family from {LOC} visiting, updated on POC.",
        "{REL} (niece) would like a call at {PHONE}.",
        "Sister {REL} coming from {LOC} tomorrow.",
        "Friend {REL} at bedside.",
        "Family meeting set for {DATES} with Dr. {DOCN}.",
        "Dtr {REL} and son {REL} in, questions answered.",
        "Pt's wife called from {LOC}.",
        "No family contact this shift.",
        "Spoke with {REL} re: code status.",
        "{REL} here all afternoon, very supportive.",
        "Brother {REL} from {STATE} updated by phone.",
        "Wife's number is {PHONE}.",
        "{REL} and {REL} at bedside.",
        "{PATF}'s son {REL} spoke with team.",
        "Mrs. {PATN} tearful, wants to go home.",
        "Pt's daughter, a nurse at {HOSP}, asking about plan.",
        "Husband is {REL} {PATL}, cell {PHONE}.",
        "Lives in {LOC} with wife.",
        "SW following, {HOSP} rehab screening.",
        "[Family in|Family here|Visitors|Visited by|In to visit][:|-|] {REL}[,| and| &] {REL}[, "
        "{REL}|].",
        "[{REL}|{REL}|<STAFF>] <AWARE>[ of {TOPIC2}|re: <TOPIC>|].",
        "[<SPOKE>|Called|called] [{REL}|{REL}|<STAFF>] [re:|re|about|regarding] <TOPIC>[ <WHEN>|].",
        "[<KIN>|<WIFE>|<HUSB>|<DTR>|<SON>] {REL} [in|here|called|visiting|at bedside|phoned] "
        "<WHEN>[, [updated|questions answered|supportive|aware of plan]|].",
        "[<KIN>|<DTR>|<SON>] [{REL}|] [<PH>] {PHONE}[ - [HCP|call w/ changes|any time]|].",
        "{REL} [({KINWORD})|, <KIN>,|the <KIN>] [would like|wants|requests] [a call|update|to "
        "speak w/ MD] [at|@|-] {PHONE}.",
        "[{PATF}|{PATL}|Pt]'s [<KIN>|wife|husband|dtr|son] [{REL}|] [from|in] {LOC} "
        "[called|coming in|updated].",
        "[Per|per] [{REL}|{REL}|<STAFF>|{BRAND} note], [pt|she|he] [lives alone|uses a "
        "walker|was fine last week|has not been eating][ in {LOC}|].",
    ],
    "A/P": [
        "Cont to monitor, {PLAN}.",
        "Stable, possible transfer to floor {DATES}.",
        "Will cont to monitor; may need more lasix.",
        "Mobile with walker, sponge bath given.",
        "Family expresses hope for recovery.",
        "Plan for {PROC} on {DATES} with Dr. {DOCL}.",
        "Awaiting bed at {HOSP}.",
        "D/C to {HOSP} when stable.",
        "F/u labs, {PLAN}.",
        "Pt to go to {HOSPA} for {PROC} on {DATES}.",
        "{PATF} to OR in am, consent signed.",
        "Dr. {DOCN} to see pt in am, pager {PAGER}.",
        "Call {DOC} with any questions, beeper {PAGER}.",
        "{DOCL} to follow up {DATES}.",
        "Next INR check {DATES}; results to {DOC}.",
        "Transfer to {HOSP} in {LOC} when bed available.",
        "Cardiology (Dr. {DOCN}) to see re: {PROC}.",
        "Will d/w team at {TIME} rounds.",
        "[Plan|POC|Plan per team]: [{PLAN}|f/u w/ {DOCL}|{PROC} {DATES}|to {HOSPA} "
        "{DATES}|{DRUG} per {DOCL}][; {PLAN}|].",
        "[Will|will|Hope to|May|may] [cont|continue|wean|d/c|recheck] "
        "[{DRUG}|{BRAND}|lytes|{PLAN}] <WHEN>[ per {DOCL}|].",
        "[{DOCL}|<DR> {DOCL}|{DOC}|<STAFF>|{DOCL}] [to|will] [see pt|call {REL}|f/u|meet w/ "
        "family] [<WHEN>|{DATES}|tomorrow][, <PGR> {PAGER}|].",
        "[D/c|Dispo|d/c|Screening] <TO> [{HOSP}|{HOSPA}|rehab in {LOC}] [when "
        "stable|{DATES}|pending bed].",
    ],
}


def pattern_ids() -> dict[str, str]:
    """Every PHI-bearing template by id (``"d:HOSPITAL COURSE:3"``, ``"n:Social:0"``)."""
    out: dict[str, str] = {}
    for prefix, pools in (("d", DISCHARGE), ("n", NURSING)):
        for pool, templates in pools.items():
            for i, template in enumerate(templates):
                if any(slot in PHI_SLOTS for slot in SLOT_RE.findall(template)):
                    out[f"{prefix}:{pool}:{i}"] = template
    return out


# ------------------------------------------------------------------------ non-PHI fillers
CHIEF_COMPLAINTS = [
    "chest pain", "shortness of breath", "abdominal pain", "syncope", "fever",
    "altered mental status", "GI bleed", "hypotension", "fall", "hematemesis",
    "dyspnea on exertion", "palpitations", "weakness", "cough", "melena",
]  # fmt: skip
DIAGNOSES = [
    "CAD", "HTN", "DM2", "hyperlipidemia", "CHF", "COPD", "afib", "ESRD on HD", "CKD",
    "hypothyroidism", "GERD", "PVD", "CVA", "pancreatitis", "cirrhosis", "UTI", "DVT",
    "PE", "sepsis", "pneumonia", "anemia", "gout", "OSA", "depression", "NIDDM",
    "aortic stenosis", "MR", "cellulitis", "urosepsis", "BPH",
]  # fmt: skip
PROCEDURES = [
    "CABG", "3V CABG", "PTCA", "cardiac cath", "AVR", "MVR", "cholecystectomy", "TURP",
    "PEG placement", "ERCP", "EGD", "colonoscopy", "R TKR", "L THR", "appendectomy",
    "stent to LAD", "PPM placement", "bronchoscopy", "thoracentesis", "paracentesis",
]  # fmt: skip
EPONYMS = [
    "Swan-Ganz catheter", "Swan", "Foley", "Foley catheter", "Bell's palsy",
    "Parkinson's disease", "Huntington's disease", "Alzheimer's dementia",
    "Crohn's disease", "Graves' disease", "Cushing's syndrome", "Homan's sign negative",
    "Murphy's sign", "Babinski downgoing", "Hodgkin's lymphoma", "Addison's disease",
    "Mallory-Weiss tear", "Wilson's disease", "Trendelenburg", "Glasgow Coma Scale 15",
    "Down syndrome", "Raynaud's", "Guillain-Barre", "Wolff-Parkinson-White",
    "Nissen fundoplication", "Whipple procedure", "Roux-en-Y bypass", "Kussmaul breathing",
]  # fmt: skip
SERVICES = [
    "Cardiology", "Neurology", "Nephrology", "GI", "Surgery", "Renal", "ID", "Pulmonary",
    "Hematology", "Oncology", "Psychiatry", "EP", "Vascular", "Urology", "Endocrine",
]  # fmt: skip
SYMPTOMS = [
    "worsening SOB", "substernal chest pressure", "nausea and vomiting", "dizziness",
    "diaphoresis", "LE swelling", "bright red blood per rectum", "fevers and chills",
    "productive cough", "orthopnea", "PND", "RUQ pain", "confusion",
]  # fmt: skip
FINDINGS = [
    "no acute process", "EF 35%", "3VD", "a new LBBB", "RLL infiltrate", "small effusion",
    "LVH", "ST depressions in V4-V6", "severe AS", "mild MR", "no DVT", "a 2 cm mass",
    "moderate TR", "global hypokinesis", "patent grafts",
]  # fmt: skip
PLANS = [
    "continue current regimen", "wean O2 as tolerated", "diurese to goal -1L",
    "check lytes in am", "repeat echo", "f/u cultures", "increase beta blocker",
    "hold anticoagulation", "advance diet", "PT consult", "keep K>4, Mg>2",
]  # fmt: skip
RHYTHMS = ["NSR", "SR", "afib", "AF with RVR", "ST", "SB", "paced rhythm", "aflutter"]
BUGS = ["MRSA", "E. coli", "VRE", "Klebsiella", "coag neg staph", "GPC in clusters"]
JOBS = ["teacher", "engineer", "nurse", "machinist", "accountant", "carpenter", "cook"]
UNITS = ["MICU", "CCU", "SICU", "CSRU", "the floor", "step-down"]
TESTS = ["CT", "MRI", "CXR", "stress test", "echo", "cath", "ultrasound"]
SHIFTS = ["7a-7p", "7p-7a", "0700-1900", "1900-0700", "3-11", "11-7"]
DOSES = {
    "mg": [5, 10, 12.5, 20, 25, 40, 50, 80, 81, 100, 200, 325, 500, 650, 1000],
    "mcg": [25, 50, 88, 100, 125],
    "units": [5, 10, 20, 5000],
}
ROUTES = ["PO", "IV", "SC", "SL", "p.o.", "", "po", "NG"]
FREQUENCIES = [
    "q.d.", "b.i.d.", "t.i.d.", "q.i.d.", "q.o.d.", "q.h.s.", "p.r.n.", "daily", "BID",
    "TID", "qd", "q6h", "q8h", "q4h prn pain", "qAM", "qhs", "prn",
]  # fmt: skip
LABS = [
    "K {k}", "Na {na}", "Cr {cr}", "BUN {bun}", "INR {inr}", "Hct {hct}", "WBC {wbc}",
    "Plt {plt}", "Glc {glc}", "Mg {mg}", "Trop {trop}", "CK {ck}", "HCO3 {hco3}",
]  # fmt: skip
MURMURS = ["no m/r/g", "II/VI SEM at RUSB", "2/6 systolic murmur", "S1S2, no murmur"]
LUNG_FINDINGS = ["CTAB", "crackles at bases", "diminished at bases", "exp wheezes"]
EDEMA = ["no", "trace", "1+", "2+", "3+"]
EXAM_GENERAL = ["NAD", "elderly woman in mild distress", "alert, pleasant", "uncomfortable"]
EKG_FINDINGS = ["NSR 72, no ST changes", "AF at 110, LAD", "SR, 1st deg AVB", "paced"]
CXR_FINDINGS = ["clear", "mild pulmonary edema", "RLL opacity", "small L effusion"]
CATH_FINDINGS = ["DES to RCA", "POBA to OM1", "medical management", "referred for CABG"]
O2 = ["RA", "2L NC", "4L NC", "50% FM", "NRB", "40% shovel mask"]
#: Capitalised non-PHI words (devices, brands, drips, dressings): hard negatives that a
#: capitalisation cue would mistake for names.
BRANDS = [
    "Foley", "Swan", "Hickman", "Groshong", "Bair Hugger", "Levophed", "Zosyn", "Flexiseal",
    "Dobhoff", "Pleurevac", "Jackson-Pratt", "Blake drain", "Kerlix", "Mepilex", "Duoderm",
    "Tegaderm", "Pneumoboots", "Venodynes", "Roho", "Kinair", "Passy-Muir", "Yankauer",
    "Ambu", "Coumadin", "Ativan", "Haldol", "Precedex", "Neo", "Vanco", "Pulmocare",
    "Impella", "Tridil", "Cordis", "Quinton", "Picc", "Pyxis", "Hemovac", "Sengstaken",
    "Dilaudid", "Fentanyl", "Versed", "Heparin", "Insulin", "Nepro", "Promote", "Miami J",
    "Philadelphia collar", "Aspen collar", "Boston brace", "Texas catheter", "Hoyer lift",
]  # fmt: skip
#: Numbers shaped like dates, phones or IDs that are not PHI.
HARD_NUMBERS = [
    "pain {n}/10", "{n}/10 pain", "PS {n}/5", "CPAP 5/5", "I/O {a}/{b}", "BP {bp}", "MAP {m}",
    "rm {r}", "bed {n}", "Rm {r}", "Gluc {g}", "FS {g}", "RISS {n}u", "{n}/6 SEM", "ABG {abg}",
    "CVP {n}", "PAP {bp}", "{a}cc/{b}cc", "Hct {h}", "{n}+ edema", "GCS {n}", "1/2 NS",
    "D5 1/2NS @ {n}0", "K {k}", "INR {k}",
]  # fmt: skip
KIN_WORDS = ["daughter", "son", "wife", "husband", "dtr", "niece", "sister", "HCP", "friend"]
TIMES = ["0600", "0800", "1000", "1200", "1400", "1600", "1800", "2000", "2200", "0200"]

"""The Wikipedia environment (ReAct's Search / Lookup / Finish) and the HotPotQA domain.

Two corpora behind one interface (`corpus.Corpus`): an offline SQLite FTS5
index of HotPotQA distractor paragraphs (the default) and the live Wikipedia
(opt-in). Two environments: `hotpotqa` (ReAct: one Thought + Action per step)
and `hotpotqa-cot` (chain of thought without Wikipedia, ending in Finish).
"""

"""The parts of the BPMN parser: document context, the process walk, and one module per element
family, dispatched by tag through `elements.ELEMENTS` (an unsupported tag is absent from it).

Pure: the entry point is `core.parser.parse_bpmn`; nothing here reads files or the clock.
"""

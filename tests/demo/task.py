#!/usr/bin/env python3
"""make demo's scripted task (tests/lib/scripted_model.py steps), whatever the prompt: plan a
todo list, read todo.py, add clear() and a `clear` command, write its test, run the tests
(bash: OpenCode asks first), answer.   task.py PROJECT_DIR > task.json"""
import json
import sys

p = sys.argv[1]
NAMES = ["Add clear() to todo.py", "Add a `clear` command", "Test clear()", "Run the tests"]


def todos(*states):
    return {"tool": "todowrite", "args": {"todos": [
        {"id": str(i + 1), "content": n, "status": s, "priority": "medium"}
        for i, (n, s) in enumerate(zip(NAMES, states))]}}


CLEAR = '''def clear(items):
    """Drops the items that are done."""
    return [item for item in items if not item["done"]]


def main(argv):'''
TEST = '''import unittest

import todo


class ClearTest(unittest.TestCase):
    def test_clear_drops_done_items(self):
        items = [{"text": "a", "done": True}, {"text": "b", "done": False}]
        self.assertEqual(todo.clear(items), [{"text": "b", "done": False}])


if __name__ == "__main__":
    unittest.main()
'''
steps = [
    dict(todos("in_progress", "pending", "pending", "pending"),
         text="I'll add a `clear` command that drops the finished items."),
    {"tool": "read", "args": {"filePath": p + "/todo.py"}},
    {"tool": "edit", "args": {"filePath": p + "/todo.py", "oldString": "def main(argv):", "newString": CLEAR}},
    {"tool": "edit", "args": {"filePath": p + "/todo.py", "oldString": '    elif argv[:1] == ["list"]:',
                              "newString": '    elif argv[:1] == ["clear"]:\n        save(clear(items))\n'
                                           '    elif argv[:1] == ["list"]:'}},
    todos("completed", "completed", "in_progress", "pending"),
    {"tool": "write", "args": {"filePath": p + "/test_clear.py", "content": TEST}},
    {"tool": "bash", "args": {"command": "python3 -m unittest -q", "description": "Run the tests"}},
    todos("completed", "completed", "completed", "completed"),
    {"text": "Done: clear() and a `clear` command, with test_clear.py. The tests pass."},
]
print(json.dumps({"title": "Add a clear command", "steps": steps}, indent=1))

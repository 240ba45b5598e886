"""Store each distinct message text once: requests become lists of [role, index into texts]."""
import json
import sys

for path in sys.argv[1:]:
    data = json.load(open(path))
    texts, index = [], {}
    for case in data["modes"].values():
        for strat in case["strategies"].values():
            reqs = []
            for req in strat["requests"]:
                row = []
                for m in req:
                    if m["content"] not in index:
                        index[m["content"]] = len(texts)
                        texts.append(m["content"])
                    row.append([m["role"], index[m["content"]]])
                reqs.append(row)
            strat["requests"] = reqs
    data["texts"] = texts
    json.dump(data, open(path, "w"), indent=1, ensure_ascii=False)

"""BALROG's TextWorld games as published: the facts of each game, and the settings that made them.

BALROG plays 25 fixed games per task, downloaded from the intelligent-go-explore repository
(``textworld/tw_games``), where they are public together with the scripts that made them
(``textworld/misc/make_treasure.py``, ``make_coin.py``, ``make_cooking.py``, ``custom-tw-make.py``).
This table keeps facts read from each game's ``.json`` metadata (made by
``scripts/facts/textworld_games.py``), not the games: the generation seeds, the room count, the
walkthrough length, the maximum score, the uuid, and short SHA-256 digests of the walkthrough and of the
objective text. playbench regenerates each game from its seeds and checks it against its row.

Rows are in BALROG's order: its factory globs ``*.ulx`` then ``*.z8`` under each task's folder and sorts
them, so episode ``i`` of a task plays ``GAMES[task][i % 25]`` (compat: the original's counter, see
``game.game_position``). File names are labels only: the scripts never passed their ``seed_N`` to the
generator; the seeds that made each game are the metadata's ``seeds`` (map, objects, quest, grammar).
"""

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Recipe:
    """How a task's games were made: the TextWorld challenge, its settings and the grammar option.

    ``only_last_action``: ``custom-tw-make.py`` (treasure hunter, coin collector) sets
    ``options.grammar.only_last_action = True``; the cooking games came from plain ``tw-make``.
    ``published_format``: the published files' format (Glulx ``.ulx``, which textworld 1.7 cannot play,
    or ``.z8``); playbench always makes ``.z8``.
    """

    challenge: str
    settings: dict[str, Any]
    only_last_action: bool
    published_format: str
    script: str
    #: False for the cooking games: their oven has no open/closed state (textworld 1.7 closes it)
    closed_oven: bool = True


@dataclass(frozen=True)
class PublishedGame:
    """One published game: its file stem, generation seeds and the facts its regeneration must match."""

    label: str
    #: ``metadata.seeds``: map, objects, quest, grammar
    seeds: tuple[int, int, int, int]
    rooms: int
    walkthrough: int
    max_score: int
    uuid: str
    #: first 16 hex digits of SHA-256 of the walkthrough commands joined by newlines
    walkthrough_sha: str
    #: first 16 hex digits of SHA-256 of the objective text
    objective_sha: str
    #: first 16 hex digits of SHA-256 of the initial world facts (sorted JSON texts, newline-joined)
    world_sha: str

    def seed_dict(self) -> dict[str, int]:
        """The seeds as TextWorld's ``GameOptions.seeds`` takes them."""
        return dict(zip(("map", "objects", "quest", "grammar"), self.seeds, strict=True))


RECIPES: dict[str, Recipe] = {
    # make_treasure.py: level 30 (mode hard, 20 rooms, quest length 20); a game is kept only if its
    # walkthrough is exactly 20 steps (all 25 rows say 20).
    "treasure_hunter": Recipe("tw-treasure_hunter", {"level": 30}, True, ".ulx", "make_treasure.py"),
    # make_cooking.py: recipe 5, take 5, go 12, open, cook, cut, split test, no drop.
    "the_cooking_game": Recipe(
        "tw-cooking",
        {"recipe": 5, "take": 5, "go": 12, "open": True, "cook": True, "cut": True, "drop": False,
         "recipe_seed": 0, "split": "test"},
        False, ".z8", "make_cooking.py", closed_oven=False,
    ),
    # make_coin.py: level 220 (mode simple, 60 rooms, quest length 20).
    "coin_collector": Recipe("tw-coin_collector", {"level": 220}, True, ".ulx", "make_coin.py"),
}

TREASURE_HUNTER: tuple[PublishedGame, ...] = (
    PublishedGame("seed_10033", (47920, 43505, 24630, 41822), 20, 20, 1, "tw-treasure_hunter-pPIRhn-house-GjW-OdxNCxkLfg3ju81O", "ad24d0f0adc5d781", "81b0b7dc3993eb6b", "68fb36eecd1af5ec"),
    PublishedGame("seed_10915", (53134, 15333, 28653, 47022), 20, 20, 1, "tw-treasure_hunter-pPIRhn-house-GjW-DnxqcX6VF0K2sDBO", "a8b7c1e157f0cb9b", "523524a1b5fb6306", "3e4da5665731456f"),
    PublishedGame("seed_14115", (13322, 3432, 52788, 23884), 20, 20, 1, "tw-treasure_hunter-pPIRhn-house-GjW-LlnDIgqQcOxyIYEX", "48e657abd3445275", "396f90bc6b58b595", "7e0814c6350f01eb"),
    PublishedGame("seed_16404", (63591, 35354, 29057, 32674), 20, 20, 1, "tw-treasure_hunter-pPIRhn-house-GjW-1ZRaf1xWTpRPiBga", "adc8b180380aef1f", "90b9684b645a5eef", "1b47ad5e77607f67"),
    PublishedGame("seed_18762", (20695, 37620, 8064, 59214), 20, 20, 1, "tw-treasure_hunter-pPIRhn-house-GjW-MqnKIm0rFppZivPM", "6e487071127ebc77", "f6ec27379ca532fb", "b6b85b27466bf05a"),
    PublishedGame("seed_20085", (58519, 18083, 34794, 14499), 20, 20, 1, "tw-treasure_hunter-pPIRhn-house-GjW-9W8JFpWZiXD1TDy7", "7afdb7b6b16b42b2", "d947e6a62c23c20a", "355b5e5b1f34176f"),
    PublishedGame("seed_21726", (57786, 52938, 55874, 14953), 20, 20, 1, "tw-treasure_hunter-pPIRhn-house-GjW-kJqLsY7yh8geiDBV", "9eefad5fdb732d39", "dd45aa29f3fe090c", "a792b663c68eae9c"),
    PublishedGame("seed_24649", (15759, 31296, 50790, 10644), 20, 20, 1, "tw-treasure_hunter-pPIRhn-house-GjW-m617hP1QUJLmfB0Z", "dcdd2a31bce24b9d", "b610504e965e94f8", "b2be85dfd1f9e23b"),
    PublishedGame("seed_27903", (61007, 50494, 36914, 58349), 20, 20, 1, "tw-treasure_hunter-pPIRhn-house-GjW-xx5gFYlMuoyoSWYJ", "3d014d3c4620cf7b", "3596a91cbf26ca4a", "9dd30aaa8e42ed98"),
    PublishedGame("seed_30233", (5247, 53090, 34939, 5333), 20, 20, 1, "tw-treasure_hunter-pPIRhn-house-GjW-Bn8LH96pT0dJSj5V", "100204c8abc13679", "4db7ef41aed84166", "8cfa6fc6fe62cce9"),
    PublishedGame("seed_34432", (58372, 19044, 27435, 34432), 20, 20, 1, "tw-treasure_hunter-pPIRhn-house-GjW-2ZyXcjBJFO88tPEm", "496f9a5442f20127", "ccf453bf645a2299", "0548abbdca0303c2"),
    PublishedGame("seed_34884", (29716, 55723, 20472, 24675), 20, 20, 1, "tw-treasure_hunter-pPIRhn-house-GjW-o3O6i55mI9pGTgyM", "2670d39a94046711", "a91297b05d8e283e", "68bee294822b80ee"),
    PublishedGame("seed_37212", (20788, 44935, 3985, 45656), 20, 20, 1, "tw-treasure_hunter-pPIRhn-house-GjW-Z2gqh68mHeWPTDDX", "1b104c5b9d70bd62", "c2a96d385e2458ac", "bac1542596694861"),
    PublishedGame("seed_40784", (36607, 37122, 51879, 8324), 20, 20, 1, "tw-treasure_hunter-pPIRhn-house-GjW-NnBpfeJ1uYVjFkor", "5f4eb7e00ef6067c", "12daeb7e8225cf0e", "ded4c25be0d90fca"),
    PublishedGame("seed_47496", (9989, 39476, 21771, 37297), 20, 20, 1, "tw-treasure_hunter-pPIRhn-house-GjW-x7mZuJvmiOWYF90M", "fad0453d64191840", "6ea1ac9d5fcb4414", "625796dbd9b0379d"),
    PublishedGame("seed_50479", (25565, 50639, 53890, 4231), 20, 20, 1, "tw-treasure_hunter-pPIRhn-house-GjW-vK5PUJWEtjWBHRyl", "713eff627c2cb607", "6887792134df6774", "fec0edb0b0ce3376"),
    PublishedGame("seed_51016", (9456, 7988, 26132, 25273), 20, 20, 1, "tw-treasure_hunter-pPIRhn-house-GjW-QPeoUmv9CVdWSxn6", "e85e58e6c577dc19", "cd4cdf64a1809039", "7135e01db04f02a0"),
    PublishedGame("seed_51709", (52083, 18206, 57121, 15799), 20, 20, 1, "tw-treasure_hunter-pPIRhn-house-GjW-yb2mubDytDYqh8Mq", "7b39c0fb3bb1302f", "44e8590a27fcd971", "a42604b1f3a57516"),
    PublishedGame("seed_51781", (28591, 21498, 31485, 14858), 20, 20, 1, "tw-treasure_hunter-pPIRhn-house-GjW-DQ9qu2PeUN3dIWJ8", "b4ecf244d55665db", "85a0a8a2413587e2", "5191e0ca7c4528e5"),
    PublishedGame("seed_53195", (44335, 48562, 51129, 5441), 20, 20, 1, "tw-treasure_hunter-pPIRhn-house-GjW-0ZB2TQ97TJv6fbRl", "8b6517d1324ef782", "18325f10e6412885", "33e728a4e13393a8"),
    PublishedGame("seed_54472", (41755, 51804, 41734, 3994), 20, 20, 1, "tw-treasure_hunter-pPIRhn-house-GjW-BnndhZJVuJLEhNrd", "ac0431e639229d48", "8ac47f989a3e481a", "28c0560076230554"),
    PublishedGame("seed_58109", (14930, 60911, 4293, 43453), 20, 20, 1, "tw-treasure_hunter-pPIRhn-house-GjW-R67PtkyaSqp8hWDY", "60d78aadf16f02f0", "a2461fe176aa9526", "0e6ebe87d06a195b"),
    PublishedGame("seed_61644", (35516, 49070, 34391, 47033), 20, 20, 1, "tw-treasure_hunter-pPIRhn-house-GjW-g32gHrO5SRB0i19k", "b444330f90b02ae8", "f1fd930cb87a90ca", "0dbd7919c7e4257e"),
    PublishedGame("seed_61922", (9453, 7060, 33512, 20830), 20, 20, 1, "tw-treasure_hunter-pPIRhn-house-GjW-75WEFroPtLB3S3KM", "79eef7ab5b4d39ea", "b097183263501980", "a1ca7eab4fd67e8b"),
    PublishedGame("seed_898", (44729, 27410, 64210, 3330), 20, 20, 1, "tw-treasure_hunter-pPIRhn-house-GjW-y9EncdWZUBbJhv5x", "53849204fb60de42", "3a999e9ac831d87f", "5adace0bf1bc2a69"),
)
THE_COOKING_GAME: tuple[PublishedGame, ...] = (
    PublishedGame("cooking_item5_seed_10980", (62727, 54965, 9201, 59834), 12, 65, 17, "tw-cooking-test-recipe5+take5+cook+cut+open+go12-9q0eFEN7ueMXcbOR", "7d0a1c2ee90bde33", "e9cc0199a073737c", "73d9825df0156e3b"),
    PublishedGame("cooking_item5_seed_11996", (39909, 10976, 44026, 36623), 12, 88, 17, "tw-cooking-test-recipe5+take5+cook+cut+open+go12-yXLBFMeNtv1LiMd0", "a14bed185b93dbb7", "e9cc0199a073737c", "11e465f92ad12b39"),
    PublishedGame("cooking_item5_seed_12274", (43616, 5808, 20492, 18647), 12, 73, 17, "tw-cooking-test-recipe5+take5+cook+cut+open+go12-6o59SWOdiQ99HnqZ", "8ff06d568f2e8fc3", "e9cc0199a073737c", "e41c5be2546e6379"),
    PublishedGame("cooking_item5_seed_12896", (7488, 9939, 17520, 2410), 12, 53, 17, "tw-cooking-test-recipe5+take5+cook+cut+open+go12-XnB2Ij81ueeRtg1Y", "96fc0d9671de09e7", "e9cc0199a073737c", "107687a77bd200e7"),
    PublishedGame("cooking_item5_seed_13009", (22244, 42329, 56533, 35863), 12, 57, 17, "tw-cooking-test-recipe5+take5+cook+cut+open+go12-0EdycB8GiyeWUX6q", "bfe8b4ca02d51772", "e9cc0199a073737c", "75c8e16699686121"),
    PublishedGame("cooking_item5_seed_15394", (36142, 26232, 15218, 52989), 12, 51, 17, "tw-cooking-test-recipe5+take5+cook+cut+open+go12-K1gBhoqoC9dlCDY8", "467cf4249a13d7da", "e9cc0199a073737c", "62ecb0b5b63f1ce8"),
    PublishedGame("cooking_item5_seed_16632", (34745, 2443, 58082, 26496), 12, 54, 17, "tw-cooking-test-recipe5+take5+cook+cut+open+go12-vrJ5hVROfbrkFB9b", "e509dea64367af7d", "e9cc0199a073737c", "bdce305a9d7d51ed"),
    PublishedGame("cooking_item5_seed_16877", (24787, 33105, 58347, 24887), 12, 69, 17, "tw-cooking-test-recipe5+take5+cook+cut+open+go12-N3G1CEyvuOlOFVvr", "1f0fd93433ea8a33", "e9cc0199a073737c", "c0b379dee37afdae"),
    PublishedGame("cooking_item5_seed_17067", (20044, 48079, 3907, 4448), 12, 90, 17, "tw-cooking-test-recipe5+take5+cook+cut+open+go12-jN6oIoyEcpENF8lG", "77e90cf3de20cda3", "e9cc0199a073737c", "b9ee8e6451a08ec1"),
    PublishedGame("cooking_item5_seed_19196", (50964, 61167, 47550, 27377), 12, 46, 17, "tw-cooking-test-recipe5+take5+cook+cut+open+go12-nVMBFj76fZ5OtXXE", "e92f83380727fa84", "e9cc0199a073737c", "da227c27b1dfb611"),
    PublishedGame("cooking_item5_seed_19296", (21562, 7724, 9836, 59429), 12, 45, 17, "tw-cooking-test-recipe5+take5+cook+cut+open+go12-kYY7cVLvUJGvh5Nn", "d205fa926c6d6d4b", "e9cc0199a073737c", "0bd1d174b5ecebfd"),
    PublishedGame("cooking_item5_seed_19414", (10824, 22956, 51678, 41620), 12, 66, 17, "tw-cooking-test-recipe5+take5+cook+cut+open+go12-oVV5SpGnsyJXCmZv", "4dd40e6165c0c0f4", "e9cc0199a073737c", "57cb4910264c24c7"),
    PublishedGame("cooking_item5_seed_20939", (15427, 19743, 17425, 22403), 12, 83, 17, "tw-cooking-test-recipe5+take5+cook+cut+open+go12-Qa0ktVLkiEXMsW2r", "aa0cfd9ac866ce7c", "e9cc0199a073737c", "ea05c026b857f793"),
    PublishedGame("cooking_item5_seed_21151", (11858, 43077, 32705, 14809), 12, 49, 17, "tw-cooking-test-recipe5+take5+cook+cut+open+go12-KN5jHmjvfJL2sygp", "ea80636013e05bf1", "e9cc0199a073737c", "c460147671bee929"),
    PublishedGame("cooking_item5_seed_21622", (47123, 29022, 16475, 27336), 12, 50, 17, "tw-cooking-test-recipe5+take5+cook+cut+open+go12-BE5JSJ1VtayJFndq", "fb6461eb18af1476", "e9cc0199a073737c", "5bc7e8620fda2926"),
    PublishedGame("cooking_item5_seed_23109", (2319, 41764, 61811, 21351), 12, 58, 17, "tw-cooking-test-recipe5+take5+cook+cut+open+go12-LE5EIbnEiRBvIRQe", "c8f85f75369e73c7", "e9cc0199a073737c", "d23d1cb532ee98f8"),
    PublishedGame("cooking_item5_seed_23895", (17104, 26359, 36719, 16109), 12, 70, 17, "tw-cooking-test-recipe5+take5+cook+cut+open+go12-JMjYIGdVSkG1hlQ8", "0c6c5b8f870c72ad", "e9cc0199a073737c", "e61366a93a165977"),
    PublishedGame("cooking_item5_seed_3265", (33645, 48350, 65578, 40000), 12, 66, 17, "tw-cooking-test-recipe5+take5+cook+cut+open+go12-qlvnS30VF9YVFZrv", "55d18ee4f60f6c21", "e9cc0199a073737c", "10838c04e4b9a539"),
    PublishedGame("cooking_item5_seed_3569", (37367, 46742, 48653, 59088), 12, 46, 17, "tw-cooking-test-recipe5+take5+cook+cut+open+go12-LqyrfZkyFQbnTr6l", "e0eb4d9a7a3b6ed2", "e9cc0199a073737c", "053badbb6f20e7e1"),
    PublishedGame("cooking_item5_seed_3653", (10740, 14233, 43287, 53983), 12, 80, 17, "tw-cooking-test-recipe5+take5+cook+cut+open+go12-vOlpSqr1cOaGIEVD", "9834e22b406e8eef", "e9cc0199a073737c", "75ef595f9aa87d78"),
    PublishedGame("cooking_item5_seed_4227", (54580, 27512, 10457, 18208), 12, 58, 17, "tw-cooking-test-recipe5+take5+cook+cut+open+go12-GZvDiPxeHGypCobQ", "f72bad46c33854a4", "e9cc0199a073737c", "57870bc1d0d9009c"),
    PublishedGame("cooking_item5_seed_5869", (14981, 12972, 42062, 36613), 12, 52, 17, "tw-cooking-test-recipe5+take5+cook+cut+open+go12-P8dLU7a8F2KxckYl", "a99f280a2ef299b4", "e9cc0199a073737c", "803f8ca64794916d"),
    PublishedGame("cooking_item5_seed_5972", (43205, 57466, 26945, 16346), 12, 88, 17, "tw-cooking-test-recipe5+take5+cook+cut+open+go12-JMnmCxYOC3Jjio5B", "c9c92aac1cad2177", "e9cc0199a073737c", "06c28f279f1639b5"),
    PublishedGame("cooking_item5_seed_9729", (16955, 24864, 50607, 23922), 12, 62, 17, "tw-cooking-test-recipe5+take5+cook+cut+open+go12-OlJqS0kyFNe2Cx53", "2e9257b4858926d6", "e9cc0199a073737c", "042bfd1f397b2910"),
    PublishedGame("cooking_item5_seed_9887", (351, 3935, 56987, 165), 12, 57, 17, "tw-cooking-test-recipe5+take5+cook+cut+open+go12-rv5sDLh3kPT03M", "10506c94eb7acbf7", "e9cc0199a073737c", "f71d2068bbc22180"),
)
COIN_COLLECTOR: tuple[PublishedGame, ...] = (
    PublishedGame("level_220_seed_100", (31327, 61159, 13635, 10039), 60, 20, 1, "tw-coin_collector-Y2iGRfL-house-mZW-rnNyFGDLuaD2hMQ1", "85053f7cbf36de5d", "b6fc5137ff872980", "dc97c20e3f5a8546"),
    PublishedGame("level_220_seed_1171", (20143, 4162, 35528, 17826), 60, 20, 1, "tw-coin_collector-Y2iGRfL-house-mZW-daaksO59uJBMImkd", "642737ee71110468", "ca60c5dd81d85ff6", "98c5b8561467fd08"),
    PublishedGame("level_220_seed_12089", (10306, 60720, 62639, 42720), 60, 20, 1, "tw-coin_collector-Y2iGRfL-house-mZW-BOnPfM17cMEqhyQ6", "372e746feec75233", "769aa4e1f7859a7f", "2ce9c936bc2cef5c"),
    PublishedGame("level_220_seed_15858", (15007, 30814, 60074, 61257), 60, 20, 1, "tw-coin_collector-Y2iGRfL-house-mZW-5vBXFZORTab5H9xj", "44886d4e8faa78f0", "d341d73277416eab", "b309cffecce09e8f"),
    PublishedGame("level_220_seed_16706", (56034, 3635, 3570, 9209), 60, 20, 1, "tw-coin_collector-Y2iGRfL-house-mZW-OW7BfEXnhLkqsYL5", "5c5a9576c00a7c7c", "f666e208c4dca93b", "0e5cf0cdd1877180"),
    PublishedGame("level_220_seed_20174", (37828, 62900, 27519, 54546), 60, 20, 1, "tw-coin_collector-Y2iGRfL-house-mZW-mDvYc8JptZd3CZrK", "c7dbce084b7b1821", "8b115e659e80064d", "9c1d53e9bcb0cd1c"),
    PublishedGame("level_220_seed_23258", (4922, 12896, 15809, 46238), 60, 20, 1, "tw-coin_collector-Y2iGRfL-house-mZW-oWkkTVXgCg1ZIPrB", "2ffc9fa3510e6982", "6d7570e7551bc606", "b7efd1a2790da70f"),
    PublishedGame("level_220_seed_24972", (48640, 10471, 54933, 58617), 60, 20, 1, "tw-coin_collector-Y2iGRfL-house-mZW-ZYWeTaVmfXpZUeva", "c932d7bd8f4151bb", "409e4538b51ff14e", "4157dd4bede3ff67"),
    PublishedGame("level_220_seed_34290", (36887, 11923, 54884, 8972), 60, 20, 1, "tw-coin_collector-Y2iGRfL-house-mZW-nJQ6fqpVtkkBi6JD", "47a8b08f853eb8cb", "539a1a3d4fb2984d", "fd718c389c08209c"),
    PublishedGame("level_220_seed_38603", (26303, 5536, 61892, 28275), 60, 20, 1, "tw-coin_collector-Y2iGRfL-house-mZW-6Qa5hY5rtjLGir1O", "3b987134d272f3f2", "53990e4d4322dd24", "2ea81168956d51d5"),
    PublishedGame("level_220_seed_39118", (9234, 49222, 57487, 21955), 60, 20, 1, "tw-coin_collector-Y2iGRfL-house-mZW-VaEGsO6ehgdbSyaM", "7eb98ffa1ac7fe4a", "d6dfa80b57a51041", "e7450c4711b9ceb8"),
    PublishedGame("level_220_seed_39317", (14850, 39964, 9532, 52030), 60, 20, 1, "tw-coin_collector-Y2iGRfL-house-mZW-3aKnc0JpURmoCj0E", "0c454636d3d04218", "bc57aec0418ce811", "ec62238b1d5a6ed7"),
    PublishedGame("level_220_seed_41628", (17573, 37197, 61819, 29772), 60, 20, 1, "tw-coin_collector-Y2iGRfL-house-mZW-q5Y3H6r3ipO7sNBM", "411a6c7009b340de", "2ed4c23ab0e867fa", "28d05cb9cd6a15fa"),
    PublishedGame("level_220_seed_42962", (32113, 35049, 32712, 30220), 60, 20, 1, "tw-coin_collector-Y2iGRfL-house-mZW-bmZ2TGpgF2eoFOvx", "54d100c78b54cd6a", "610cf7436ed4f858", "013c5ff34ce466c4"),
    PublishedGame("level_220_seed_43450", (17317, 35667, 8160, 23575), 60, 20, 1, "tw-coin_collector-Y2iGRfL-house-mZW-V52dFYZxtddNTpZO", "5f5de1df31ad1116", "edd04c00e5870e59", "657bcae0be1d2229"),
    PublishedGame("level_220_seed_45669", (4670, 58001, 47936, 11989), 60, 20, 1, "tw-coin_collector-Y2iGRfL-house-mZW-MOLvfLe8CK9JhbGy", "55bbd47854d6d69b", "2763dc3fe0068fb1", "1b356caf1a0c036c"),
    PublishedGame("level_220_seed_46023", (31192, 60577, 63790, 54889), 60, 20, 1, "tw-coin_collector-Y2iGRfL-house-mZW-1QBLcvgpidOLuP5R", "d745402ffa21d83c", "90b10272f1bdb51d", "47b8a88144951210"),
    PublishedGame("level_220_seed_50027", (45171, 21666, 63290, 16615), 60, 20, 1, "tw-coin_collector-Y2iGRfL-house-mZW-EkZ1IO1gtWB1HdQ6", "3700cc772b7a236d", "33cac291bef53940", "0da494f572c20f85"),
    PublishedGame("level_220_seed_51189", (31685, 65045, 50420, 29361), 60, 20, 1, "tw-coin_collector-Y2iGRfL-house-mZW-V02qsggkTxXPs6ro", "0231a3ec84d3ff1c", "34f3e224638e89c5", "9126c6511b0f81c5"),
    PublishedGame("level_220_seed_52044", (65472, 6798, 8921, 28237), 60, 20, 1, "tw-coin_collector-Y2iGRfL-house-mZW-P0y6TplKU8aaS7pm", "0e1f5e828f09ebdb", "0f5ded4c916c2c22", "e14db842c339c557"),
    PublishedGame("level_220_seed_53694", (41902, 32114, 29555, 23633), 60, 20, 1, "tw-coin_collector-Y2iGRfL-house-mZW-qgNxfDajsX2VfyxN", "e24eca037c7d5347", "d7672ab77d371a06", "32dbc5ffccbf6ef9"),
    PublishedGame("level_220_seed_55609", (37257, 43621, 38145, 968), 60, 20, 1, "tw-coin_collector-Y2iGRfL-house-mZW-3n8f5MxtKagHpd1", "3f8731b5aad505a5", "d3f01e220ae3f79e", "5c413a5d2bbb3ab2"),
    PublishedGame("level_220_seed_57866", (46496, 8617, 59744, 47292), 60, 20, 1, "tw-coin_collector-Y2iGRfL-house-mZW-K2EDi8xgTKoRiaYq", "7a7c00b69e6bad7d", "63e445013b2658d5", "8e0c695b60831740"),
    PublishedGame("level_220_seed_60838", (31558, 42006, 50697, 37286), 60, 20, 1, "tw-coin_collector-Y2iGRfL-house-mZW-7MgEfqMZc1ppse8g", "f4a5e0e2a90cfcda", "e6459c5b886cc58f", "2a9efa039ea5902e"),
    PublishedGame("level_220_seed_8250", (34587, 10245, 14185, 41019), 60, 20, 1, "tw-coin_collector-Y2iGRfL-house-mZW-j18jhlbBhmo0sQ3n", "f2375aaa0fc7f943", "7861ba3936cadf42", "99740fd0058e4a7b"),
)

#: task -> its 25 games in BALROG's order
GAMES: dict[str, tuple[PublishedGame, ...]] = {
    "treasure_hunter": TREASURE_HUNTER,
    "the_cooking_game": THE_COOKING_GAME,
    "coin_collector": COIN_COLLECTOR,
}

"""The entertainment sandbox's own business rules (the contract of every sandbox: test_contract.py)."""

from __future__ import annotations

import re
from typing import Any

from tests.sandboxes import support
from validator.sandbox.base import Sandbox

NAME = "entertainment"
STATE = support.state(NAME)
run, error_kind = support.call, support.error_kind


def fresh(patch: dict[str, Any] | None = None, clock: str | None = None) -> Sandbox:
    return support.fresh(NAME, patch, clock=clock)


def test_catalogue_size() -> None:
    support.check_catalogue(NAME, 8, (1, 2))


def test_english_descriptions_have_no_chinese() -> None:
    assert support.chinese_in_english(NAME) == []


# ----------------------------------------------------------------------------- state and specs


def test_state_shape() -> None:
    assert STATE["sandbox"] == "entertainment"
    data = STATE["data"]
    assert {"member", "cities", "movies", "cinemas", "showtimes", "movie_bookings", "tracks", "playlists", "concerts"} <= data.keys()
    for rows, counter in [(data["movie_bookings"], "movie_booking"), (data["playlists"], "playlist")]:
        ids = [int(row["id"].split("-")[1]) for row in rows]
        assert len(ids) == len(set(ids)), counter
        assert max(ids) <= STATE["counters"][counter], f"counter {counter} would reissue an id"
    for show in data["showtimes"].values():
        assert show["cinema"] in data["cinemas"] and show["movie"] in data["movies"]
        assert all(re.fullmatch(r"[A-H](1[0-2]|[1-9])", seat) for seat in show["taken"])


# ----------------------------------------------------------------------------- business rules


def test_showtime_search() -> None:
    app = fresh()
    tonight = run(app, "search_showtimes", city="上海", date="2024-11-08")["showtimes"]
    assert [s["showtime_id"] for s in tonight] == ["ST-201", "ST-101", "ST-102"]
    imax = run(app, "search_showtimes", city="Shanghai", date="2024-11-09", movie="霓虹潮汐", format="imax", start_after="15:00")
    assert [s["showtime_id"] for s in imax["showtimes"]] == ["ST-203"]
    assert run(app, "search_showtimes", city="shanghai", date="2024-11-09", max_price=60)["count"] == 2
    assert error_kind(app, "search_showtimes", city="Wuhan", date="2024-11-09") == "city_not_found"
    late = fresh()
    late.state["clock"] = "2024-11-08T19:40:00+08:00"
    assert [s["showtime_id"] for s in run(late, "search_showtimes", city="Shanghai", date="2024-11-08")["showtimes"]] == ["ST-102"]


def test_movie_booking() -> None:
    app = fresh()
    seats = run(app, "get_seat_map", showtime_id="ST-104")["free_seats_by_row"]
    assert seats["F"] == [1, 2, 3, 4, 8, 9, 10, 11, 12]
    booking = run(
        app, "book_movie_tickets", cinema="星光影城", movie="Neon Tides", start_time="2024-11-09T19:30",
        tickets=[{"seat": "F8", "ticket_type": "adult"}, {"seat": "F9", "ticket_type": "student"}],
        snacks=[{"item": "combo_for_two", "quantity": 1}], use_points=True,
    )
    assert booking["id"] == "MB-504" and booking["total"] == 80 + 64 + 45
    assert booking["points_used"] == 2400 and booking["paid"] == 189 - 24
    assert error_kind(app, "book_movie_tickets", cinema="Starlight Jing'an", movie="Neon Tides", start_time="2024-11-09T19:30", tickets=[{"seat": "F8", "ticket_type": "adult"}]) == "seat_taken"
    assert error_kind(app, "book_movie_tickets", cinema="Starlight Jing'an", movie="Neon Tides", start_time="2024-11-09T20:00", tickets=[{"seat": "A1", "ticket_type": "adult"}]) == "showtime_not_found"
    assert error_kind(app, "book_movie_tickets", cinema="Starlight Jing'an", movie="Neon Tides", start_time="2024-11-09T19:30", tickets=[{"seat": "A1", "ticket_type": "adult"}, {"seat": "A1", "ticket_type": "child"}]) == "duplicate_seat"
    assert error_kind(app, "book_movie_tickets", cinema="Moon Cinema", movie="Neon Tides", start_time="2024-11-09T19:30", tickets=[{"seat": "A1", "ticket_type": "adult"}]) == "cinema_not_found"
    cancelled = run(app, "cancel_movie_booking", booking_id="MB-504")
    assert cancelled == {"booking_id": "MB-504", "status": "cancelled", "refund": 165, "points_returned": 2400}
    assert "F8" not in app.data["showtimes"]["ST-104"]["taken"]
    assert error_kind(app, "cancel_movie_booking", booking_id="MB-504") == "not_cancellable"
    assert run(app, "list_movie_bookings")["count"] == 1 and run(app, "list_movie_bookings", include_past=True)["count"] == 3
    soon = fresh()
    soon.state["clock"] = "2024-11-09T12:45:00+08:00"
    assert error_kind(soon, "cancel_movie_booking", booking_id="MB-503") == "too_late_to_cancel"


def test_music() -> None:
    app = fresh()
    assert [t["id"] for t in run(app, "search_music", query="", genres=["jazz"])["tracks"]] == ["T-09", "T-12"]
    assert run(app, "search_music", query="", genres=["rock"], include_explicit=False)["count"] == 1
    assert run(app, "search_music", query="林遥", search_type="artist")["artists"][0]["tracks"] == 2
    assert run(app, "search_music", query="", released_after=2022, released_before=2023)["count"] == 6
    playlist = run(app, "create_playlist", name="Road trip", tracks=[{"title": "铜色月亮", "artist": "江辰"}, {"title": "Little Boat", "artist": "Jiang Chen"}])
    assert playlist["id"] == "PL-3" and playlist["tracks"] == ["T-08", "T-14"]
    assert error_kind(app, "create_playlist", name="road trip") == "playlist_exists"
    assert error_kind(app, "create_playlist", name="Party", public=True, collaborative=True) == "collaborative_must_be_private"
    assert error_kind(app, "create_playlist", name="Party", tracks=[{"title": "Copper Moon", "artist": "Lin Yao"}]) == "track_not_found"
    added = run(app, "add_to_playlist", playlist="晨跑", tracks=[{"title": "Runway 27", "artist": "Volt Garden"}, {"title": "Velvet Engine", "artist": "Nova Reyes"}], position="top")
    assert added["added"] == ["T-16"] and added["skipped_duplicates"] == ["T-10"] and added["tracks"][0] == "T-16"
    playing = run(app, "start_playback", playlist="Rainy Sunday", repeat="playlist", volume_percent=25, device="living_room_speaker", crossfade_seconds=4.5, sleep_timer_minutes=45)
    assert playing["now_playing"] == "T-06" and playing["volume_percent"] == 25
    assert error_kind(app, "start_playback", playlist="Rainy Sunday", device="car") == "device_offline"
    assert error_kind(app, "start_playback", playlist="Gym") == "playlist_not_found"


def test_concerts() -> None:
    app = fresh()
    found = run(app, "search_concerts", city="上海", start_date="2024-11-08", end_date="2024-11-30")["concerts"]
    assert [c["id"] for c in found] == ["CO-33", "CO-31"] and "stand_b" not in found[1]["zones"]
    assert run(app, "search_concerts", city="Shanghai", start_date="2024-11-01", end_date="2024-12-31", max_price=400)["count"] == 3
    assert error_kind(app, "search_concerts", city="Shanghai", start_date="2024-12-01", end_date="2024-11-01") == "invalid_range"
    people = [{"name": "Wen Jia", "id_number": "310104199203154428"}, {"name": "Zhou Yan", "id_number": "31010519930722302X"}]
    order = run(app, "buy_concert_tickets", artist="林遥", date="2024-11-23", zone="stand_a", attendees=people, insurance=True)
    assert order["id"] == "CT-7711" and order["total"] == 2 * 880 + 40 and order["delivery"] == {"method": "e_ticket", "address": None}
    assert error_kind(app, "buy_concert_tickets", artist="Lin Yao", date="2024-11-23", zone="stand_b", attendees=people[:1]) == "sold_out"
    assert error_kind(app, "buy_concert_tickets", artist="Lin Yao", date="2024-11-23", zone="balcony", attendees=people[:1]) == "zone_not_offered"
    assert error_kind(app, "buy_concert_tickets", artist="Lin Yao", date="2024-11-24", zone="vip", attendees=people[:1]) == "concert_not_found"
    assert error_kind(app, "buy_concert_tickets", artist="Lin Yao", date="2024-11-23", zone="vip", attendees=[people[0], people[0]]) == "duplicate_attendee"
    assert error_kind(app, "buy_concert_tickets", artist="Lin Yao", date="2024-11-23", zone="vip", attendees=people[:1], delivery={"method": "courier"}) == "address_required"
    address = {"recipient": "Wen Jia", "phone": "13601722958", "city": "Shanghai", "street": "Room 502, 88 Wuding Road, Jing'an"}
    assert error_kind(app, "buy_concert_tickets", artist="Lin Yao", date="2024-11-23", zone="vip", attendees=people[:1], delivery={"method": "e_ticket", "address": address}) == "address_not_needed"
    courier = run(app, "buy_concert_tickets", artist="Clara Wendt", date="2024-12-01", zone="balcony", attendees=people[:1], delivery={"method": "courier", "address": address})
    assert courier["fees"] == 15 and courier["total"] == 295


def test_same_calls_same_state() -> None:
    def script() -> dict[str, Any]:
        app = fresh()
        run(app, "book_movie_tickets", cinema="West Lake Cinema", movie="纸龙", start_time="2024-11-10T09:50", tickets=[{"seat": "D5", "ticket_type": "child"}])
        run(app, "create_playlist", name="Focus", public=True)
        return app.state

    assert script() == script()


# ----------------------------------------------------------------------------- holds, waitlists, queue, cities abroad

LONDON_EVENING = "2024-11-08T17:00:00+00:00"


def test_hold_seats_then_buy_them() -> None:
    sandbox = fresh()
    hold = run(sandbox, "reserve_movie_seats", cinema="Starlight Cinema", movie="Neon Tides", start_time="2024-11-09T19:30", seats=["D7", "D8"])
    assert hold == {"id": "SH-21", "showtime": "ST-104", "cinema": "Starlight Cinema Jing'an", "movie": "Neon Tides", "start": "2024-11-09T19:30",
                    "seats": ["D7", "D8"], "expires_at": "2024-11-08T14:15", "status": "held", "price_per_adult": 80, "adult_total": 160}
    assert sandbox.data["member"]["points"] == 2400 and sandbox.data["movie_bookings"] == STATE["data"]["movie_bookings"], "nothing is paid"
    assert "D7" not in run(sandbox, "get_seat_map", showtime_id="ST-104")["free_seats_by_row"]["D"]
    assert error_kind(sandbox, "reserve_movie_seats", cinema="Starlight Cinema", movie="Neon Tides", start_time="2024-11-09T19:30", seats=["D8"]) == "seat_taken"
    booking = run(sandbox, "book_movie_tickets", cinema="Starlight Cinema", movie="Neon Tides", start_time="2024-11-09T19:30",
                  tickets=[{"seat": "D7", "ticket_type": "adult"}, {"seat": "D8", "ticket_type": "student"}])
    assert booking["total"] == 144 and sandbox.data["seat_holds"][0]["status"] == "converted"
    run(sandbox, "reserve_movie_seats", cinema="Riverside IMAX", movie="Neon Tides", start_time="2024-11-09T21:30", seats=["A1"])
    run(sandbox, "reserve_movie_seats", cinema="Riverside IMAX", movie="Neon Tides", start_time="2024-11-09T21:30", seats=["A2"])
    assert error_kind(sandbox, "reserve_movie_seats", cinema="Riverside IMAX", movie="Neon Tides", start_time="2024-11-09T21:30", seats=["A3"]) == "too_many_holds"
    assert error_kind(sandbox, "reserve_movie_seats", cinema="Starlight Cinema", movie="Neon Tides", start_time="2024-11-08T11:00", seats=["A3"]) == "showtime_not_found"
    assert error_kind(sandbox, "reserve_movie_seats", cinema="Nowhere", movie="Neon Tides", start_time="2024-11-09T21:30", seats=["A3"]) == "cinema_not_found"
    assert error_kind(sandbox, "reserve_movie_seats", cinema="Riverside IMAX", movie="Nope", start_time="2024-11-09T21:30", seats=["A3"]) == "movie_not_found"
    assert error_kind(sandbox, "reserve_movie_seats", cinema="Riverside IMAX", movie="Neon Tides", start_time="2024-11-09T21:30", seats=["A4", "A4"]) == "duplicate_seat"
    later = fresh(clock="2024-11-08T19:00:00+08:00")
    assert error_kind(later, "reserve_movie_seats", cinema="Riverside IMAX", movie="Neon Tides", start_time="2024-11-08T18:45", seats=["A1"]) == "showtime_started"


def test_an_expired_hold_does_not_open_the_seats_to_its_owner() -> None:
    sandbox = fresh()
    run(sandbox, "reserve_movie_seats", cinema="West Lake Cinema", movie="Last Train to Wuzhen", start_time="2024-11-09T18:20", seats=["C5"])
    sandbox.advance_clock(minutes=20)
    assert error_kind(sandbox, "book_movie_tickets", cinema="West Lake Cinema", movie="Last Train to Wuzhen", start_time="2024-11-09T18:20",
                      tickets=[{"seat": "C5", "ticket_type": "adult"}]) == "seat_taken"


def test_london_cinema_in_pounds() -> None:
    sandbox = fresh(clock=LONDON_EVENING)
    shows = run(sandbox, "search_showtimes", city="伦敦", date="2024-11-08")["showtimes"]
    assert [(s["showtime_id"], s["currency"]) for s in shows] == [("ST-601", "GBP"), ("ST-602", "GBP")]
    booking = run(sandbox, "book_movie_tickets", cinema="Regent Screen", movie="Neon Tides", start_time="2024-11-08T18:15",
                  tickets=[{"seat": "E7", "ticket_type": "adult"}, {"seat": "E8", "ticket_type": "student"}], snacks=[{"item": "popcorn_large", "quantity": 1}])
    assert (booking["total"], booking["currency"]) == (21.5 + 17.2 + 7.5, "GBP")
    assert error_kind(sandbox, "book_movie_tickets", cinema="Regent Screen", movie="Neon Tides", start_time="2024-11-08T18:15",
                      tickets=[{"seat": "E9", "ticket_type": "adult"}], use_points=True) == "points_not_accepted"
    assert run(sandbox, "cancel_movie_booking", booking_id=booking["id"])["currency"] == "GBP"
    beijing_clock = fresh()  # 14:00 in Shanghai is 06:00 in London: every London show of the day is still ahead
    assert run(beijing_clock, "search_showtimes", city="London", date="2024-11-08")["count"] == 2
    assert run(fresh(clock="2024-11-09T04:00:00+08:00"), "search_showtimes", city="New York", date="2024-11-08")["count"] == 1, "15:00 in New York"


def test_concert_waitlist_only_when_sold_out() -> None:
    sandbox = fresh()
    entry = run(sandbox, "join_concert_waitlist", artist="Jiang Chen", date="2024-12-14", zone="floor", tickets=2, notify="sms")
    assert entry == {"waitlist_id": "WL-56", "concert": "CO-36", "artist": "Jiang Chen", "start": "2024-12-14T19:30", "zone": "floor",
                     "tickets": 2, "position": 3, "notify": "sms", "price_per_ticket": 480}
    assert sandbox.data["concert_orders"] == []
    assert error_kind(sandbox, "join_concert_waitlist", artist="江辰", date="2024-12-14", zone="floor") == "already_on_waitlist"
    assert error_kind(sandbox, "join_concert_waitlist", artist="Jiang Chen", date="2024-12-14", zone="stand_a") == "tickets_available"
    assert error_kind(sandbox, "join_concert_waitlist", artist="Jiang Chen", date="2024-12-14", zone="vip") == "zone_not_offered"
    assert error_kind(sandbox, "join_concert_waitlist", artist="Jiang Chen", date="2024-12-15", zone="floor") == "concert_not_found"
    assert error_kind(sandbox, "join_concert_waitlist", artist="Jiang Chen", date="2024-12-32", zone="floor") == "invalid_date"
    london = run(sandbox, "join_concert_waitlist", artist="Mira Vale", date="2024-11-29", zone="floor")
    assert london["position"] == 1 and london["currency"] == "GBP"


def test_concerts_abroad_are_e_tickets_in_local_currency() -> None:
    sandbox = fresh()
    found = run(sandbox, "search_concerts", city="Toronto", start_date="2024-12-01", end_date="2024-12-31")["concerts"]
    assert [(c["id"], c["currency"], sorted(c["zones"])) for c in found] == [("CO-39", "CAD", ["floor"])]
    people = [{"name": "Wen Jia", "id_number": "E12345678"}]
    order = run(sandbox, "buy_concert_tickets", artist="The Harbour Lights", date="2024-12-06", zone="floor", attendees=people)
    assert (order["total"], order["currency"]) == (79.0, "CAD")
    assert error_kind(sandbox, "buy_concert_tickets", artist="The Harbour Lights", date="2024-12-06", zone="floor", attendees=people, insurance=True) == "insurance_not_offered"
    courier = {"method": "courier", "address": {"recipient": "Wen Jia", "phone": "13800000000", "address": "1 Front Street, Toronto"}}
    assert support.error(sandbox, "buy_concert_tickets", strict_args=False, artist="The Harbour Lights", date="2024-12-06", zone="floor",
                         attendees=people, delivery=courier).kind == "delivery_not_offered"


def test_queue_songs_without_touching_playlists() -> None:
    sandbox = fresh()
    song = [{"title": "Copper Moon", "artist": "Jiang Chen"}]
    assert error_kind(sandbox, "add_to_queue", tracks=song) == "nothing_playing"
    run(sandbox, "start_playback", playlist="Rainy Sunday")
    queued = run(sandbox, "add_to_queue", tracks=song)
    assert queued == {"added": ["T-08"], "queue": ["T-08"], "device": "phone", "playlist_unchanged": "PL-2"}
    assert run(sandbox, "add_to_queue", tracks=[{"title": "小船", "artist": "江辰"}], play_next=True)["queue"] == ["T-14", "T-08"]
    assert sandbox.data["playlists"] == STATE["data"]["playlists"]
    assert error_kind(sandbox, "add_to_queue", tracks=[{"title": "Unknown", "artist": "Nobody"}]) == "track_not_found"
    full = fresh({"queue": ["T-01"] * 50, "playback": {"playing": True}})
    assert error_kind(full, "add_to_queue", tracks=song) == "queue_full"

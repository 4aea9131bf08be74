-- a draw and a discard through one process (2 actions): made by games/benchmarks/capacity.py (pgbench_scripts) from games/services/play/play.py's
-- statements; `python manage.py bench_capacity --write-scripts deploy/capacity` writes it again.
\set game_id :first + :client_id * :per + random(0, :per - 1)
SELECT g.state::text, g.version, g.finished, g.table_id, g.hand_number, g.turn_deadline, g.due_at,
       t.draw_seconds, t.play_seconds, t.players, t.status, t.disconnect_grace_seconds,
       (SELECT json_agg(json_build_array(s.position, s.user_id, s.bot_level, s.covered_by_computer,
                                         s.consecutive_timeouts) ORDER BY s.position)::text
          FROM games_seat s WHERE s.table_id = g.table_id)
FROM games_game g JOIN games_table t ON t.id = g.table_id
WHERE g.id = :game_id
\gset r_
\set v1 :r_version + 1
\set v2 :r_version + 2
\set seat mod(:r_version, 2)
\set to_move mod(:v1, 2)
\set to_move2 mod(:v2, 2)
WITH g AS (
    UPDATE games_game
       SET state = :r_state::jsonb, version = :v1, to_move = :to_move, turn_deadline = :now, due_at = :now, updated_at = :now
     WHERE id = :game_id AND version = :r_version AND NOT finished 
 RETURNING id, xmin::text AS token
), m AS (
    INSERT INTO games_move (game_id, seq, hand_number, seat, action, actor, created_at)
    SELECT id, :v1, :r_hand_number, :seat, :draw::jsonb, :actor, :now FROM g
)
SELECT token FROM g
\gset w_
WITH g AS (
    UPDATE games_game
       SET state = :r_state::jsonb, version = :v2, to_move = :to_move2, turn_deadline = :now, due_at = :now, updated_at = :now
     WHERE id = :game_id AND version = :v1 AND NOT finished AND xmin = :w_token::xid AND (SELECT json_agg(json_build_array(s.position, s.user_id, s.bot_level, s.covered_by_computer,
                                         s.consecutive_timeouts) ORDER BY s.position)::text
          FROM games_seat s WHERE s.table_id = games_game.table_id) = :r_json_agg
 RETURNING id, xmin::text AS token
), m AS (
    INSERT INTO games_move (game_id, seq, hand_number, seat, action, actor, created_at)
    SELECT id, :v2, :r_hand_number, :seat, :discard::jsonb, :actor, :now FROM g
)
SELECT token FROM g;

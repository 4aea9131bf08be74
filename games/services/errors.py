"""Every refusal of the site's services, and of its sockets, in one catalogue.

A service that refuses raises `ServiceError(key, **params)` and changes nothing; the edges
(the sockets' base consumer, the views' `refusal_shown`, the tasks) catch it in one place each
and show `message`, beside the engine's own `IllegalMove` (its RULES §12 messages stay in
games/engine). A key is the wire code (the `code` of an error frame), or the code and a
context after a colon when one code says different things in different places
("login_required:tournament" is sent as `login_required` with the tournament's text).

The messages are Italian, translated lazily (locale/en/LC_MESSAGES/django.po): `message` is
rendered when the refusal is made, in the language active there, with its `params`.

>>> from django.utils import translation
>>> with translation.override("it"):
...     ServiceError("not_seated").message
'Non sei seduto a questo tavolo.'
>>> exc = ServiceError("login_required:tournament")
>>> exc.code, exc.key
('login_required', 'login_required:tournament')
>>> with translation.override("en"):
...     ServiceError("already_following", name="anna").message
'You already follow anna.'
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _

MESSAGES: dict[str, Any] = {
    # ---- sockets (the frame itself)
    "bad_json": _("Messaggio non valido: non è JSON."),
    "bad_frame": _("Messaggio non valido."),
    "too_large": _("Messaggio troppo grande."),
    "unknown_type": _("Tipo di messaggio sconosciuto."),
    "rate_limited": _("Troppe azioni in poco tempo: rallenta."),
    "bad_phrase": _("In chat si possono usare solo le frasi proposte."),
    "busy": _("Il server è molto carico in questo momento: nulla è cambiato, riprova tra un attimo."),
    "unavailable": _("Il server non riesce a salvare la mossa in questo momento: nulla è cambiato, "
                     "riprova tra qualche secondo."),
    "login_required": _("Per questo bisogna entrare con il proprio account."),
    # ---- play
    "bad_actor": _("Chi gioca questa mossa?"),
    "not_playing": _("La partita non è in corso."),
    "stale_version": _("La partita è andata avanti: ecco la situazione aggiornata."),
    "not_your_seat": _("Puoi giocare solo per il tuo posto."),
    "not_seated": _("Non sei seduto a questo tavolo."),
    "no_table": _("Questo tavolo non esiste."),
    "not_started": _("La partita non è ancora iniziata: per lasciare il tavolo usa «Alzati»."),
    "already_finished": _("La partita è già finita."),
    # ---- tables
    "login_required:table": _("Per creare un tavolo bisogna entrare con il proprio account."),
    "not_waiting": _("La partita a questo tavolo è già iniziata o finita."),
    "bad_position": _("Questo posto non esiste a questo tavolo."),
    "two_players_only": _("La variante %(preset)s si gioca solo in due: scegli 2 giocatori o la variante "
                          "%(other)s."),
    "site_full": _("Il sito è al completo: tutti i tavoli disponibili sono occupati. Riprova tra qualche minuto."),
    "private_unrated": _("Un tavolo privato non può essere valido per la classifica: chi sceglie gli avversari "
                         "potrebbe accordarsi sul risultato. Togli una delle due scelte."),
    "seat_taken": _("Questo posto è già occupato."),
    "already_started": _("La partita è già iniziata: non puoi lasciare il posto."),
    "bad_level": _("Livello del computer non valido."),
    "rated_no_computer": _("Una partita valida per la classifica si gioca solo tra persone: niente computer."),
    "not_seated:computer": _("Per aggiungere il computer devi essere seduto al tavolo."),
    "not_full": _("Mancano ancora dei giocatori: occupa i posti liberi o aggiungi il computer."),
    # ---- rematch
    "not_finished": _("La rivincita si chiede quando la partita è finita."),
    "tournament_table": _("A un tavolo di torneo non c'è rivincita: il prossimo turno lo decide il torneo."),
    "no_offer": _("Non c'è nessuna rivincita da rifiutare: nessuno l'ha chiesta."),
    "rematch_declined": _("La rivincita è stata rifiutata: a questo tavolo non se ne gioca un'altra."),
    "rematch_left": _("La rivincita è finita perché qualcuno ha lasciato il tavolo."),
    "rematch_started": _("La rivincita è già cominciata."),
    # ---- analysis
    "analysis_unfinished": _("La partita è ancora in corso: l'analisi si chiede a partita finita."),
    # ---- players: challenges, friends, blocks
    "no_player": _("Questo giocatore non esiste."),
    "bad_preset": _("Variante sconosciuta: scegli una delle varianti proposte."),
    "login_required:challenge": _("Per sfidare un giocatore bisogna entrare con il proprio account."),
    "self_challenge": _("Non puoi sfidare te stesso: scegli un altro giocatore."),
    "you_block:challenge": _("Hai bloccato %(name)s: sbloccalo prima di sfidarlo."),
    "blocked:challenge": _("Non puoi sfidare %(name)s: questo giocatore non accetta tuoi inviti."),
    "already_challenged": _("Hai già invitato %(name)s: aspetta la sua risposta o annulla l'invito."),
    "no_challenge": _("Questo invito non esiste."),
    "already_accepted": _("Questo invito è già stato accettato."),
    "not_pending": _("Questo invito non è più valido: è stato rifiutato o annullato."),
    "expired": _("Questo invito è scaduto: chiedi una nuova sfida."),
    "login_required:social": _("Per seguire o bloccare un giocatore bisogna entrare con il proprio account."),
    "self_follow": _("Non puoi seguire te stesso: scegli un altro giocatore."),
    "you_block:follow": _("Hai bloccato %(name)s: sbloccalo prima di seguirlo."),
    "blocked:follow": _("Non puoi seguire %(name)s: questo giocatore non lo permette."),
    "already_following": _("Segui già %(name)s."),
    "not_following": _("Non segui %(name)s."),
    "self_block": _("Non puoi bloccare te stesso."),
    "already_blocked": _("Hai già bloccato %(name)s."),
    "not_blocked": _("Non hai bloccato %(name)s."),
    # ---- the queue
    "login_required:queue": _("Per giocare con altre persone bisogna entrare con il proprio account."),
    "bad_mode": _("Modalità sconosciuta: scegli 1 contro 1 oppure a coppie."),
    "partner_pairs_only": _("Si gioca in coppia con un compagno solo nella modalità a coppie."),
    "self_partner": _("Non puoi fare coppia con te stesso: scegli un altro giocatore."),
    "already_queued": _("Sei già in coda per una partita: annulla la ricerca in corso prima di cominciarne "
                        "un'altra."),
    "already_matched": _("Hai già una partita in corso al tavolo %(n)s, trovata dalla coda: finiscila prima di "
                         "cercarne un'altra."),
    "playing_elsewhere": _("Stai giocando al tavolo %(n)s: finisci o abbandona quella partita prima di cercarne "
                           "un'altra."),
    "partner_queued": _("%(name)s è già in coda per un'altra partita: potrete fare coppia quando avrà finito la "
                        "ricerca."),
    "partner_playing": _("%(name)s sta giocando al tavolo %(n)s: potrete fare coppia quando avrà finito."),
    "not_queued": _("Non sei in coda per nessuna partita."),
    "no_invitation": _("Questo invito non esiste."),
    # ---- leaving the site (account deletion)
    "seated_playing": _("Stai giocando al tavolo %(n)s: finisci la partita o abbandonala prima di eliminare "
                        "l'account."),
    "seated_waiting": _("Sei seduto al tavolo %(n)s, che aspetta giocatori: alzati dal tavolo prima di eliminare "
                        "l'account."),
    "in_tournament": _("Sei iscritto al torneo «%(name)s»: ritirati dal torneo prima di eliminare l'account."),
    # ---- tournaments
    "login_required:tournament": _("Per iscriverti a un torneo devi entrare con il tuo account."),
    "no_tournament": _("Questo torneo non esiste."),
    "already_registered": _("Sei già iscritto a questo torneo."),
    "partner_registered": _("%(name)s è già iscritto a questo torneo."),
    "started": _("Le iscrizioni sono chiuse: il torneo è già cominciato."),
    "over": _("Questo torneo è già concluso."),
    "full": _("Il torneo è al completo: non ci sono più posti liberi."),
    "not_registered": _("Non sei iscritto a questo torneo."),
    "mid_round": _("Il torneo è in corso: non ci si può ritirare a metà di un turno. Se abbandoni la "
                   "partita, la perdi e sei ritirato dai turni seguenti."),
    "partner_needed": _("È un torneo a coppie: indica il nome del tuo compagno."),
    "no_partner": _("Nessun giocatore si chiama così: controlla il nome del compagno."),
    "self_partner:tournament": _("Il compagno deve essere un'altra persona."),
    "no_partner_here": _("È un torneo uno contro uno: non serve un compagno."),
    "partner_withdraw": _("Il ritiro della coppia lo fa chi l'ha iscritta."),
    "bad_kind": _("Tipo di torneo sconosciuto: sit and go oppure programmato."),
    "bad_size": _("Un sit and go si gioca in 4, 8 o 16."),
    "bad_capacity": _("Il numero di iscritti deve essere tra 2 e %(n)s."),
    "bad_rounds": _("Il numero di turni deve essere tra 1 e %(n)s."),
    "bad_target": _("Ogni turno si gioca su una mano sola oppure fino a 505 punti."),
    "bad_deals": _("Un turno di torneo duplicato ha da 1 a %(n)s smazzate."),
    "duplicate_single_hands": _("Nel torneo duplicato ogni smazzata è una mano sola: niente punteggio da raggiungere."),
    "bad_scoring": _("Scegli come contare le smazzate: punti partita in percentuale o punti vittoria."),
    "duplicate_held": _("Tavolo di un torneo duplicato: le sue carte restano coperte finché tutti i tavoli del "
                        "turno non hanno giocato le stesse smazzate. Torna a fine turno."),
    "bad_start": _("Un torneo programmato ha bisogno di un orario di inizio nel futuro."),
    "bad_name": _("Il torneo ha bisogno di un nome (al massimo 80 caratteri)."),
    # ---- the practice table's tour
    "not_practice": _("Il tempo si ferma per la guida solo a un tavolo contro il computer."),
}


def message(key: str, **params: Any) -> str:
    """The catalogue's message for `key` in the active language, with its `params` filled in."""
    text = str(MESSAGES[key])
    return text % params if params else text


class ServiceError(Exception):
    """A refused request: `code` for programs (the wire's), `message` for people; nothing changed."""

    def __init__(self, key: str, **params: Any) -> None:
        self.key = key
        self.code = key.partition(":")[0]
        self.params = params
        self.message = message(key, **params)
        super().__init__(f"{self.code}: {self.message}")

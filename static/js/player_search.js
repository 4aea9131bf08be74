// Suggestions under a name field: every <input data-player-search="URL"> gets a <datalist> of
// the players whose name contains what was typed (the same search as the "Amici" page, from
// URL?q=...), asked for a moment after the typing stops. Picking one fills the field; typing
// a name by hand still works.

const WAIT_MS = 200;
const MIN_LENGTH = 2;

function attach(input) {
  const list = document.createElement("datalist");
  list.id = `${input.id || "player"}-suggestions`;
  input.after(list);
  input.setAttribute("list", list.id);
  let timer = null;
  let asked = "";
  input.addEventListener("input", () => {
    clearTimeout(timer);
    const text = input.value.trim();
    if (text.length < MIN_LENGTH || text === asked) return;
    timer = setTimeout(async () => {
      asked = text;
      try {
        const response = await fetch(`${input.dataset.playerSearch}?q=${encodeURIComponent(text)}`,
                                     { headers: { Accept: "application/json" }, credentials: "same-origin" });
        if (!response.ok) return;
        const { names } = await response.json();
        if (input.value.trim() !== text) return; // typed on meanwhile: a newer answer follows
        list.replaceChildren(...names.map((name) => Object.assign(document.createElement("option"), { value: name })));
      } catch {
        // offline: no suggestions, the field still works
      }
    }, WAIT_MS);
  });
}

document.querySelectorAll("input[data-player-search]").forEach(attach);

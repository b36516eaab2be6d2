// The episode harness of our MiniWoB++ pages (bench/pages/miniwob/), following MiniWoB++'s core.js and
// ui_utils (github.com/Farama-Foundation/miniwob-plusplus, miniwob/html/core/core.js and common/ui_utils.js):
// a seeded random generator (?seed=N on the page's URL, so each seed is a different episode), the task's
// words in #query, and core.endEpisode(reward) saying "Last reward: 1.00" (or -1.00) in #reward, as the
// original's reward display does. One episode per page load: after it ends, the page stays as it is.
(function () {
  const seed = Number(new URLSearchParams(location.search).get("seed") || 1);
  // The state mixes the seed with the task's file name, so seed N differs from task to task.
  let state = (seed * 2654435761) >>> 0;
  for (const ch of location.pathname.split("/").pop()) state = (Math.imul(state ^ ch.charCodeAt(0), 16777619) + seed) >>> 0;
  const rand = () => {
    // mulberry32
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  let ended = false;
  window.core = {
    seed,
    randf: (min, max) => min + rand() * (max - min),
    randi: (min, max) => Math.floor(min + rand() * (max - min)),
    sample: (items) => items[Math.floor(rand() * items.length)],
    shuffle(items) {
      for (let i = items.length - 1; i > 0; i--) {
        const j = Math.floor(rand() * (i + 1));
        [items[i], items[j]] = [items[j], items[i]];
      }
      return items;
    },
    endEpisode(reward) {
      if (ended) return;
      ended = true;
      document.getElementById("reward").textContent = `Last reward: ${reward.toFixed(2)}`;
    },
  };
  window.ui_utils = {
    // ui_utils.lorem_words, PEOPLE_NAMES, COUNTRIES: shortened copies of the original's lists.
    lorem_words: ["lorem", "ipsum", "dolor", "sit", "amet", "consectetur", "adipiscing", "elit", "sed", "do", "eiusmod", "tempor", "incididunt", "ut", "labore", "et", "dolore", "magna", "aliqua", "enim", "ad", "minim", "veniam", "quis", "nostrud", "exercitation", "ullamco", "laboris", "nisi", "aliquip", "ex", "ea", "commodo", "consequat", "duis", "aute", "irure", "in", "reprehenderit", "voluptate", "velit", "esse", "cillum", "fugiat", "nulla", "pariatur", "excepteur", "sint", "occaecat", "cupidatat", "non", "proident", "sunt", "culpa", "qui", "officia", "deserunt", "mollit", "anim", "id", "est", "laborum", "morbi", "tellus", "vitae", "pretium", "porta", "diam", "facilisi", "donec", "nunc", "egestas", "fusce", "odio", "risus", "mauris", "cursus", "tortor", "justo", "nibh"],
    PEOPLE_NAMES: ["Aileen", "Alexa", "Ariana", "Bobine", "Brier", "Carlin", "Cherlyn", "Deane", "Donella", "Elnora", "Emmy", "Fidelia", "Gabriela", "Hermione", "Ilka", "Jacklin", "Jeralee", "Kanya", "Karrah", "Lenette", "Lilian", "Marcelia", "Mellisa", "Nelle", "Ninetta", "Oona", "Phebe", "Quintina", "Rebeka", "Sadella", "Sheree", "Tandi", "Trixy", "Ursula", "Vinita", "Wilona", "Xylina", "Yvette", "Zorana"],
    COUNTRIES: ["Afghanistan", "Albania", "Algeria", "Andorra", "Angola", "Argentina", "Armenia", "Australia", "Austria", "Bahamas", "Bahrain", "Bangladesh", "Barbados", "Belarus", "Belgium", "Belize", "Benin", "Bhutan", "Bolivia", "Botswana", "Brazil", "Brunei", "Bulgaria", "Burundi", "Cambodia", "Cameroon", "Canada", "Chad", "Chile", "China", "Colombia", "Comoros", "Croatia", "Cuba", "Cyprus", "Denmark", "Djibouti", "Dominica", "Ecuador", "Egypt", "Eritrea", "Estonia", "Ethiopia", "Fiji", "Finland", "France", "Gabon", "Gambia", "Georgia", "Germany", "Ghana", "Greece", "Grenada", "Guatemala", "Guinea", "Guyana", "Haiti", "Honduras", "Hungary", "Iceland", "India", "Indonesia", "Iran", "Iraq", "Ireland", "Israel", "Italy", "Jamaica", "Japan", "Jordan", "Kenya", "Kiribati", "Kuwait", "Laos", "Latvia", "Lebanon", "Lesotho", "Liberia", "Libya", "Lithuania", "Luxembourg", "Madagascar", "Malawi", "Malaysia", "Maldives", "Mali", "Malta", "Mauritania", "Mauritius", "Mexico", "Moldova", "Monaco", "Mongolia", "Montenegro", "Morocco", "Mozambique", "Myanmar", "Namibia", "Nauru", "Nepal", "Netherlands", "Nicaragua", "Niger", "Nigeria", "Norway", "Oman", "Pakistan", "Palau", "Panama", "Paraguay", "Peru", "Philippines", "Poland", "Portugal", "Qatar", "Romania", "Russia", "Rwanda", "Samoa", "Senegal", "Serbia", "Seychelles", "Singapore", "Slovakia", "Slovenia", "Somalia", "Spain", "Sudan", "Suriname", "Sweden", "Switzerland", "Syria", "Tajikistan", "Tanzania", "Thailand", "Togo", "Tonga", "Tunisia", "Turkey", "Tuvalu", "Uganda", "Ukraine", "Uruguay", "Uzbekistan", "Vanuatu", "Venezuela", "Vietnam", "Yemen", "Zambia", "Zimbabwe"],
    generateWords(min, max) {
      const n = max === undefined ? min : core.randi(min, max + 1);
      return Array.from({ length: n }, () => core.sample(ui_utils.lorem_words)).join(" ");
    },
    generateString(min, max) {
      const letters = "abcdefghijklmnopqrstuvwxyz0123456789";
      return Array.from({ length: core.randi(min, max + 1) }, () => core.sample(letters)).join("");
    },
  };
})();

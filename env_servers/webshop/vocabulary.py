"""Word lists the goal parser and the catalog generator share.

The attribute phrases were chosen from the most frequent word pairs of
WebShop's 12,087 human instructions (e.g. "gluten free" 461 times, "long
lasting" 339, "machine washable" 268); patterns such as "X free" and "easy to
X" cover the long tail. The option lists give the generator plausible
alternative values for a goal's option (another colour, another size).
"""

from __future__ import annotations

# Multi-word attribute phrases, matched whole (hyphens and spaces alike).
ATTRIBUTE_PHRASES = (
    "long lasting", "high quality", "machine washable", "machine wash", "living room",
    "dining room", "easy to use", "easy to clean", "easy to install", "easy to carry",
    "easy to assemble", "easy to apply", "easy to store", "easy to read", "easy clean",
    "easy install", "easy use", "easy assemble", "easy carry", "high speed", "non gmo",
    "rubber sole", "rubber soles", "long sleeve", "long sleeves", "long sleeved",
    "short sleeve", "short sleeves", "heavy duty", "stainless steel", "natural ingredients",
    "solid wood", "light weight", "classic fit", "high performance", "sensitive skin",
    "wireless bluetooth", "tempered glass", "super soft", "plant based",
    "individually wrapped", "non slip", "eco friendly", "water resistant", "gold plated",
    "high definition", "open toe", "memory foam", "slim fit", "quad core", "high protein",
    "travel size", "hair growth", "certified organic", "faux leather", "stereo sound",
    "low carb", "sensitive teeth", "fast charging", "daily wear", "dry skin", "high waist",
    "high waisted", "lumbar support", "arch support", "keto friendly", "noise cancelling",
    "high resolution", "box spring", "loose fit", "storage space", "teeth whitening",
    "optical zoom", "synthetic hair", "wireless charging", "ultra hd", "low calorie",
    "brushed nickel", "dark circles", "soy wax", "damaged hair", "freeze dried",
    "relaxed fit", "motion detection", "batteries included", "bad breath", "low sodium",
    "height adjustable", "high heel", "high heels", "wall mounted", "regular fit",
    "anti aging", "elastic waistband", "elastic waist", "comfortable fit",
    "fully assembled", "non toxic", "synthetic sole", "natural hair", "hair loss",
    "steel frame", "button closure", "moisture wicking", "tummy control", "quick drying",
    "high density", "high gloss", "whole grain", "dust proof", "hand painted",
    "natural looking", "space saving", "birthday party", "baby shower", "human hair",
    "oily skin", "dry hair", "hair styling", "dishwasher safe", "real leather",
    "genuine leather", "lace closure", "pull on", "zipper closure", "drawstring closure",
    "button down", "hand wash", "dry clean", "quick release", "double sided",
    "high power", "low fat", "non dairy", "grass fed", "wild caught", "ready to eat",
    "ready to hang", "great gift", "gift set", "dual band", "usb port", "4k ultra hd",
    "high capacity", "carbon fiber", "aluminum alloy", "easy to wear", "easy to drink",
    "fine mist", "hyaluronic acid", "vitamin c", "tea tree", "coconut oil", "shea butter",
    "argan oil", "essential oil", "fresh breath", "oral hygiene", "sun protection",
    "fine lines", "easy to prepare", "perfect gift", "valentines day", "mothers day",
    "fathers day", "christmas gift", "office chair", "home office", "outdoor use",
    "indoor outdoor", "quick dry", "anti slip", "anti fog", "scratch resistant",
    "shock absorption", "waterproof", "water proof", "wireless", "portable", "lightweight",
    "organic", "vegan", "vegetarian", "rechargeable", "adjustable", "breathable",
    "reusable", "disposable", "biodegradable", "kosher", "hypoallergenic", "handmade",
    "non stick", "nonstick", "durable", "foldable", "dimmable", "cordless", "washable",
)

# Words that never make an "X free" attribute ("for free", "feel free").
NOT_FREE_ATTRIBUTES = frozenset({"for", "feel", "be", "is", "are", "and", "a", "the", "it"})

# Verbs of "easy to X" attributes beyond the listed ones.
EASY_TO_VERB = r"[a-z]+"

COLORS = (
    "black", "white", "grey", "gray", "silver", "gold", "rose gold", "red", "blue",
    "navy", "navy blue", "light blue", "dark blue", "sky blue", "royal blue", "green",
    "dark green", "army green", "olive", "yellow", "orange", "pink", "hot pink", "purple",
    "violet", "brown", "dark brown", "light brown", "beige", "tan", "khaki", "ivory",
    "cream", "clear", "multicolor", "burgundy", "wine red", "teal", "turquoise", "coral",
    "mint", "champagne", "charcoal", "bronze", "copper", "nude", "lavender", "camel",
    "denim", "maroon", "mustard", "aqua", "fuchsia", "light grey", "dark grey",
    "off white", "matte black", "espresso", "walnut", "natural", "transparent",
)

CLOTHING_SIZES = (
    "x-small", "small", "medium", "large", "x-large", "xx-large", "3x-large", "4x-large",
    "5x-large",
)
BED_SIZES = ("twin", "twin xl", "full", "queen", "king", "california king")
SIZE_WORDS = frozenset(
    CLOTHING_SIZES + BED_SIZES + ("xxx-large", "extra large", "extra small", "plus", "travel",
                                  "petite", "one size", "xs", "xl", "xxl", "xxxl", "s", "m", "l")
)

FLAVORS = (
    "original", "vanilla", "chocolate", "strawberry", "mint", "lemon", "caramel",
    "peanut butter", "blueberry", "sea salt", "honey", "cinnamon", "coconut", "mango",
    "barbecue", "sour cream and onion", "cherry", "apple", "variety pack", "cookies and cream",
    "salted caramel", "matcha", "raspberry", "watermelon", "jalapeno", "garlic", "maple",
)
SCENTS = (
    "lavender", "unscented", "citrus", "vanilla", "eucalyptus", "rose", "ocean breeze",
    "sandalwood", "fresh linen", "coconut", "peppermint", "jasmine", "cedarwood",
)

# Measure units of size-like options ("4 ounce (pack of 2)", "16 inch", "64gb").
UNITS = (
    "fl oz", "fluid ounce", "fluid ounces", "ounce", "ounces", "oz", "pound", "pounds", "lb",
    "lbs", "count", "ct", "inch", "inches", "in", "feet", "ft", "foot", "gb", "tb", "ml",
    "liter", "liters", "l", "gram", "grams", "g", "kg", "mm", "cm", "m", "meter", "meters",
    "watt", "w", "piece", "pieces", "pcs", "pc", "capsules", "tablets", "softgels",
    "bags", "sheets", "rolls", "pairs", "yards", "mah", "v", "volt", "quart", "gallon",
    "pack", "packs", "bars", "cans", "bottles", "servings", "sticks", "pods", "k", "mp",
)

# Products "of another type with the same words": an accessory sold under the
# goal's words (e.g. "Smoked Peppered Bacon Keychain").
OTHER_TYPES = (
    "storage case", "display stand", "cleaning kit", "replacement cover", "wall poster",
    "sticker pack", "keychain", "gift box", "carrying bag", "organizer tray",
    "coloring book", "scented candle", "novelty t-shirt", "coffee mug", "fridge magnet",
    "greeting card", "jigsaw puzzle", "mouse pad",
)

BRAND_SYLLABLES = (
    "vel", "mor", "ka", "zen", "lu", "tor", "bri", "na", "sol", "ver", "qui", "dax", "ora",
    "fen", "lio", "mar", "tek", "sy", "ra", "no", "pel", "vin", "cor", "ela", "tha", "bo",
)

# Modifiers that may precede a colour word ("light red", "rose red").
COLOR_MODIFIERS = (
    "light", "dark", "bright", "pale", "deep", "hot", "rose", "lemon", "baby", "sky", "royal",
    "neon", "matte", "metallic", "army", "forest", "wine", "dusty", "pastel", "jet",
)

# Words dropped when a noun phrase becomes a product type.
TYPE_STOPWORDS = frozenset("""
a an the some any one two three four five six seven eight nine ten pair pairs pack packs
package packages bundle couple piece pieces of my me your our their this that these those new
good nice great best
really very quality cheap affordable simple kind type sort lot lots few several also just
please buy get find order purchase need want like looking look search searching item items
product products thing things something stuff which who whose it its is are be been i im
i'm you we he she they his her them womans womens mens man men woman women kid kids baby
girls boys girl boy unisex adult adults brand model today eleven twelve fifteen twenty thirty
forty fifty sixty seventy eighty ninety hundred centimeter centimeters millimeter
""".split())
